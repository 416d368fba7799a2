// Entry points of the `exacdf` subcommands.  Each takes the arguments after the
// subcommand name (argv[0] is the subcommand itself), runs with MPI initialized, and
// returns the process exit status.
#pragma once

namespace exa::tool {

/** `exacdf dump`: print a dataset as CDL, byte-identical to netCDF-C's ncdump. */
int dump_main(int argc, char** argv);

/** `exacdf stat`: format, object counts, metadata bytes, and the blocks of a partitioned file. */
int stat_main(int argc, char** argv);

/** `exacdf verify`: checks metadata (checksums, structure) and reads every value. */
int verify_main(int argc, char** argv);

/** `exacdf convert`: copies a file into another format (classic <-> partitioned). */
int convert_main(int argc, char** argv);

/** `exacdf index`: builds, drops or describes a variable's bitmap index. */
int index_main(int argc, char** argv);

/** `exacdf query`: counts and lists the elements matching a condition. */
int query_main(int argc, char** argv);

/** `exacdf trace`: summary (and PNG) of a trace connector report. */
int trace_main(int argc, char** argv);

/** `exacdf export-hdf5`: relations of a file or a checkpoint into an HDF5 file. */
int export_hdf5_main(int argc, char** argv);

/** `exacdf recover`: replays the cache connector's undrained logs of a file. */
int recover_main(int argc, char** argv);

}  // namespace exa::tool
