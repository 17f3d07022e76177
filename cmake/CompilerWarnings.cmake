# Warnings as an INTERFACE target, linked privately by our own targets only.
add_library(gpu_advise_warnings INTERFACE)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(gpu_advise_warnings INTERFACE
    -Wall -Wextra -Wno-missing-field-initializers -Wpedantic -Wshadow -Wconversion -Wsign-conversion
    -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual
    -Wnull-dereference -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
  # GCC 12 at -O2/-O3 reports std::string's own memcpy in `"x" + std::string&&`
  # as a possible overlap: a known false positive of GCC 12 in C++20 mode
  # (google/googletest#4108, open-telemetry/opentelemetry-cpp#2134) that moves
  # from line to line as inlining changes, so it is silenced for GCC 12 only.
  # Likewise -Wmaybe-uninitialized on the value inside a std::optional<double>
  # once fmt's templates are inlined: GCC bug 80635, the same false positive
  # at -O2/-O3.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(gpu_advise_warnings INTERFACE -Wno-restrict -Wno-maybe-uninitialized)
  endif()
  if(GPU_ADVISE_WARNINGS_AS_ERRORS)
    target_compile_options(gpu_advise_warnings INTERFACE -Werror)
  endif()
endif()

# Sanitizers for the asan preset: AddressSanitizer and UndefinedBehaviorSanitizer
# on the library and everything built with it (gpu-advise, the unit and
# validation tests, the fuzz targets), stopping at the first report. An
# INTERFACE target of its own, linked by each layer: the cli tests only run
# the instrumented gpu-advise and read its output, so their own code is not
# instrumented (a third of their compile time under clang; docs/development.md).
add_library(gpu_advise_instrument INTERFACE)
option(GPU_ADVISE_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
# The libFuzzer targets (clang only) live in the same tree: the library gets
# libFuzzer's coverage instrumentation as well (fuzzer-no-link, harmless in
# the test programs, whose sanitizer runtime defines its hooks), and only the
# fuzz targets link libFuzzer itself (tests/fuzz/CMakeLists.txt).
option(GPU_ADVISE_FUZZ "Also build the libFuzzer targets (clang; implies GPU_ADVISE_SANITIZE)" OFF)
if(GPU_ADVISE_SANITIZE OR GPU_ADVISE_FUZZ)
  target_compile_options(gpu_advise_instrument INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(gpu_advise_instrument INTERFACE -fsanitize=address,undefined)
endif()
if(GPU_ADVISE_FUZZ)
  target_compile_options(gpu_advise_instrument INTERFACE -fsanitize=fuzzer-no-link)
endif()
