// The main of the host test program (with Catch2 version 2, also the one place
// the framework is compiled for it).
#define MEMLAB_CATCH2_MAIN
#include "memlab/grading/catch2.hpp"

int main(int argc, char** argv) { return Catch::Session().run(argc, argv); }
