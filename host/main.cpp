// agentry: one binary, the daemon (`agentry serve`) and the CLI.
#include "cli/app.hpp"

int main(int argc, char** argv) { return agentry::cli::run_app(argc, argv); }
