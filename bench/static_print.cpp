// The floor for whole-process figures (docs/performance.md): a static program
// that writes, with one write(2), the bytes gpu-advise writes for one
// recommendation (embedded at build time by bench/CMakeLists.txt).
#include <unistd.h>

#include <cstddef>

extern const unsigned char floor_output[];
extern const std::size_t floor_output_size;

int main() { return write(STDOUT_FILENO, floor_output, floor_output_size) < 0 ? 1 : 0; }
