// The command line: CLI11 wiring, turning flags into a Request, running the
// pipeline and writing the result. main() is one call to run().
#pragma once

#include <ostream>

namespace gpu_advise::cli {

// Runs gpu-advise with the given arguments; returns the exit status
// (0 recommendation, 1 nothing fits, 2 usage or data error). Never throws.
[[nodiscard]] int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace gpu_advise::cli
