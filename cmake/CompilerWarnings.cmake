# Warnings as an INTERFACE target, linked privately by our own targets only.
add_library(gpu_advise_warnings INTERFACE)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(gpu_advise_warnings INTERFACE
    -Wall -Wextra -Wno-missing-field-initializers -Wpedantic -Wshadow -Wconversion -Wsign-conversion
    -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual
    -Wnull-dereference -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
  if(GPU_ADVISE_WARNINGS_AS_ERRORS)
    target_compile_options(gpu_advise_warnings INTERFACE -Werror)
  endif()
endif()
