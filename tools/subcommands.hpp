// Entry points of the `exacdf` subcommands.  Each takes the arguments after the
// subcommand name (argv[0] is the subcommand itself), runs with MPI initialized, and
// returns the process exit status.
#pragma once

namespace exa::tool {

/** `exacdf dump`: print a dataset as CDL, byte-identical to netCDF-C's ncdump. */
int dump_main(int argc, char** argv);

}  // namespace exa::tool
