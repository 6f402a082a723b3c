// shwa — shallow-water + pollutant simulator. The program is the library shwa_app (app/cli.cpp).
#include "cli.hpp"

int main(int argc, char** argv) { return shwa::app::main(argc, argv); }
