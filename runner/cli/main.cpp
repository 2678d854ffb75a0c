#include "runner/cli/run_cli.hpp"

int main(int argc, char** argv) { return shardrun::cli::main(argc, argv); }
