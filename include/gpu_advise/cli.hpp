// The command line: CLI11 wiring, turning flags into a Request, running the
// pipeline and writing the result. main() is one call to run().
#pragma once

namespace gpu_advise::cli {

// Runs gpu-advise with the given arguments on the process's standard streams;
// returns the exit status (0 recommendation, 1 nothing fits, 2 usage or data
// error, including a result that could not be written). Never throws.
[[nodiscard]] int run(int argc, const char* const* argv);

}  // namespace gpu_advise::cli
