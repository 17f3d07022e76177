#include "gpu_advise/cli.hpp"

int main(int argc, char** argv) { return gpu_advise::cli::run(argc, argv); }
