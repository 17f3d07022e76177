# The layers of gpu-advise (CMakeLists.txt) and what each may include, checked
# on the sources at configure time: a forbidden #include stops the build with
# the file and line, so "CLI11 only in cli/" is a rule the build keeps.
#
#   core, render   no <CLI/...>, no <nlohmann/...>
#   render         nothing from the advise stage (gpu_advise/advisor.hpp,
#                  fit.hpp, choose.hpp): the renderers, src/render/ in the
#                  render and json libraries, read fit's report from
#                  fit_report.hpp
#   all but cli    no <CLI/...>
#
# gpu_advise_forbid(target pattern why [folder]): the first line of the
# target's sources (those under `folder` of the project, when given) that
# matches `pattern` stops the configure.
function(gpu_advise_forbid target pattern why)
  set(folder "${ARGV3}")
  get_target_property(sources ${target} SOURCES)
  foreach(source IN LISTS sources)
    if(source MATCHES "^\\$<" OR NOT source MATCHES "\\.(cpp|hpp)$")
      continue()  # generated objects and files
    endif()
    if(NOT IS_ABSOLUTE "${source}")
      set(source "${PROJECT_SOURCE_DIR}/${source}")
    endif()
    if(source MATCHES "^${PROJECT_BINARY_DIR}/")
      continue()  # generated at build time by our own tools (embedded data, compiled catalog)
    endif()
    if(folder AND NOT source MATCHES "^${PROJECT_SOURCE_DIR}/${folder}/")
      continue()
    endif()
    file(STRINGS "${source}" lines REGEX "${pattern}")
    if(lines)
      list(GET lines 0 line)
      message(FATAL_ERROR "${source}: '${line}': ${why}")
    endif()
  endforeach()
endfunction()

function(gpu_advise_check_layers)
  foreach(target gpu_advise_core_objects gpu_advise_core gpu_advise_render gpu_advise_json)
    gpu_advise_forbid(${target} "^#include <CLI/" "CLI11 is for src/cli/ only")
  endforeach()
  foreach(target gpu_advise_core_objects gpu_advise_core gpu_advise_render)
    gpu_advise_forbid(${target} "^#include <nlohmann/" "nlohmann-json is for the json layer and src/cli/ only")
  endforeach()
  set(advise_stage "^#include \"gpu_advise/(advisor|choose|fit)\\.hpp\"")
  string(CONCAT why "renderers take facts from the Report (fit's from fit_report.hpp) and words from words.hpp, "
                    "not the advise stage")
  gpu_advise_forbid(gpu_advise_render "${advise_stage}" "${why}")
  gpu_advise_forbid(gpu_advise_json "${advise_stage}" "${why}" src/render)
endfunction()
