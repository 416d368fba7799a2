/* The cache connector's read prefetch is never wrong: every value read
 * through `cache{prefetch=..;ghost=..}` equals the native read of the same
 * call (and so does the return code, NC_ERANGE included), over chunk sweeps
 * with ghost zones clipped at the variable's edges, strided chunks, a
 * two-level chunk loop (the wrap to the next row), every numeric type read
 * in its own and in other memory types, a record variable, collective reads
 * where ranks are served differently, independent reads, and writes between
 * reads (this rank's logged puts, another rank's collective puts, iput +
 * wait_all, independent writes seen after a barrier). The counters of
 * exa_cache_read_stats show that the sweeps were served from the tier.
 * test_cache_prefetch_mover.c runs it with MPI_THREAD_MULTIPLE (the fetcher
 * thread). */
#include <stdlib.h>
#include <string.h>

#include "exacdf.h"
#include "mpi_test.h"

#ifndef CACHE_PREFETCH_THREADS
#define CACHE_PREFETCH_THREADS 0
#endif

enum { NZ = 3, NY = 10, NX = 48, CX = 6, NCHUNK = NX / CX, NREC = 6, NTYPES = 11 };

static const nc_type kTypes[NTYPES] = {NC_BYTE,  NC_CHAR,   NC_SHORT, NC_INT,   NC_FLOAT,  NC_DOUBLE,
                                       NC_UBYTE, NC_USHORT, NC_UINT,  NC_INT64, NC_UINT64};

static size_t type_size(nc_type t) {
  switch (t) {
    case NC_BYTE: case NC_CHAR: case NC_UBYTE: return 1;
    case NC_SHORT: case NC_USHORT: return 2;
    case NC_INT: case NC_UINT: case NC_FLOAT: return 4;
    default: return 8;
  }
}

static MPI_Datatype mpi_type(nc_type t) {
  switch (t) {
    case NC_BYTE: return MPI_SIGNED_CHAR;
    case NC_CHAR: return MPI_CHAR;
    case NC_SHORT: return MPI_SHORT;
    case NC_INT: return MPI_INT;
    case NC_FLOAT: return MPI_FLOAT;
    case NC_DOUBLE: return MPI_DOUBLE;
    case NC_UBYTE: return MPI_UNSIGNED_CHAR;
    case NC_USHORT: return MPI_UNSIGNED_SHORT;
    case NC_UINT: return MPI_UNSIGNED;
    case NC_INT64: return MPI_LONG_LONG;
    default: return MPI_UNSIGNED_LONG_LONG;
  }
}

/* The value of element i of a variable of type t (some beyond what smaller
 * memory types hold: reads in those give NC_ERANGE). */
static void value_of(nc_type t, long i, int generation, void *out) {
  const long v = i * 37 + 1000 * generation;
  switch (t) {
    case NC_BYTE: *(signed char *)out = (signed char)(v % 256 - 128); break;
    case NC_CHAR: *(char *)out = (char)('a' + v % 26); break;
    case NC_SHORT: *(short *)out = (short)(v % 60000 - 30000); break;
    case NC_INT: *(int *)out = (int)(v * 3 - 20000); break;
    case NC_FLOAT: *(float *)out = (float)v * 0.25f - 100.0f; break;
    case NC_DOUBLE: *(double *)out = (double)v * 1.0e6 - 5.0e7; break;
    case NC_UBYTE: *(unsigned char *)out = (unsigned char)(v % 256); break;
    case NC_USHORT: *(unsigned short *)out = (unsigned short)(v % 65536); break;
    case NC_UINT: *(unsigned *)out = (unsigned)(v * 40000); break;
    case NC_INT64: *(long long *)out = (long long)v * 3000000000LL - 7; break;
    default: *(unsigned long long *)out = (unsigned long long)v * 5000000000ULL; break;
  }
}

/* A typed get of any memory type, collective or independent. */
static int get_typed(int ncid, int varid, nc_type mem, const MPI_Offset *start, const MPI_Offset *count,
                     const MPI_Offset *stride, void *buf, int coll) {
#define GET(T, name)                                                               \
  return coll ? ncmpi_get_vars_##name##_all(ncid, varid, start, count, stride, (T *)buf) \
              : ncmpi_get_vars_##name(ncid, varid, start, count, stride, (T *)buf)
  switch (mem) {
    case NC_BYTE: GET(signed char, schar);
    case NC_CHAR: GET(char, text);
    case NC_SHORT: GET(short, short);
    case NC_INT: GET(int, int);
    case NC_FLOAT: GET(float, float);
    case NC_DOUBLE: GET(double, double);
    case NC_UBYTE: GET(unsigned char, uchar);
    case NC_USHORT: GET(unsigned short, ushort);
    case NC_UINT: GET(unsigned int, uint);
    case NC_INT64: GET(long long, longlong);
    default: GET(unsigned long long, ulonglong);
  }
#undef GET
}

static int ncid_native, ncid_cache;
static int nreads = 0;

/* One read through both handles: same code, same bytes. */
static void read_both(int varid, nc_type mem, const MPI_Offset *start, const MPI_Offset *count,
                      const MPI_Offset *stride, int ndims, int coll) {
  size_t n = 1;
  for (int d = 0; d < ndims; ++d) n *= (size_t)count[d];
  const size_t bytes = n * type_size(mem) + 1;
  char *a = malloc(bytes), *b = malloc(bytes);
  memset(a, 0x5a, bytes);
  memset(b, 0x5a, bytes);
  const int ea = get_typed(ncid_native, varid, mem, start, count, stride, a, coll);
  const int eb = get_typed(ncid_cache, varid, mem, start, count, stride, b, coll);
  CHECK(ea == eb);
  if (ea == NC_NOERR || ea == NC_ERANGE) CHECK(memcmp(a, b, bytes) == 0);
  if (ea != eb || memcmp(a, b, bytes) != 0)
    fprintf(stderr, "[rank %d] read %d: var %d mem %d start %lld,%lld,%lld: codes %d %d\n", mpi_test_rank, nreads,
            varid, (int)mem, (long long)start[0], (long long)start[1], ndims > 2 ? (long long)start[2] : 0LL, ea, eb);
  nreads++;
  free(a);
  free(b);
}

/* Chunks of [NZ, NY, CX] along x, each read with its ghost zone of 1
 * (clipped at the edges), strided by `xstride` inside the chunk; rank r
 * starts at chunk 2r and wraps around, so ranks are served differently. */
static void sweep_x(int varid, nc_type mem, int coll, int xstride) {
  for (int i = 0; i < NCHUNK; ++i) {
    const int k = (i + 2 * mpi_test_rank) % NCHUNK;
    const MPI_Offset lo = k * CX > 0 ? k * CX - 1 : 0, hi = k * CX + CX + 1 < NX ? k * CX + CX + 1 : NX;
    MPI_Offset start[3] = {0, 0, lo}, count[3] = {NZ, NY, (hi - lo + xstride - 1) / xstride},
               stride[3] = {1, 1, xstride};
    read_both(varid, mem, start, count, stride, 3, coll);
  }
}

/* A two-level loop: for each z and y block of 5 rows, the chunks along x. */
static void sweep_zyx(int varid, nc_type mem) {
  for (int z = 0; z < NZ; ++z)
    for (int y = 0; y < NY; y += 5)
      for (int k = 0; k < NCHUNK; ++k) {
        MPI_Offset start[3] = {z, y, k * CX}, count[3] = {1, 5, CX}, stride[3] = {1, 1, 1};
        read_both(varid, mem, start, count, stride, 3, 1);
      }
}

/* Every numeric type read as itself and as some others (NC_ERANGE cases). */
static const nc_type kAlso[] = {NC_DOUBLE, NC_SHORT, NC_UBYTE, NC_INT64};

static void make_file(const char *path, int *varids, int *recvar) {
  int ncid, dims[3], drec;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "z", NZ, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "y", NY, &dims[1]));
  CHECK_OK(ncmpi_def_dim(ncid, "x", NX, &dims[2]));
  CHECK_OK(ncmpi_def_dim(ncid, "rec", NC_UNLIMITED, &drec));
  for (int t = 0; t < NTYPES; ++t) {
    char name[16];
    snprintf(name, sizeof name, "v%d", t);
    CHECK_OK(ncmpi_def_var(ncid, name, kTypes[t], 3, dims, &varids[t]));
  }
  int rdims[3] = {drec, dims[1], dims[2]};
  CHECK_OK(ncmpi_def_var(ncid, "r", NC_FLOAT, 3, rdims, recvar));
  CHECK_OK(ncmpi_enddef(ncid));
  const long n = (long)NZ * NY * NX;
  char *buf = malloc((size_t)n * 8);
  for (int t = 0; t < NTYPES; ++t) {
    for (long i = 0; i < n; ++i) value_of(kTypes[t], i, 0, buf + i * (long)type_size(kTypes[t]));
    MPI_Offset start[3] = {0, 0, 0}, count[3] = {NZ, NY, NX};
    if (mpi_test_rank != 0) count[0] = 0;
    CHECK_OK(ncmpi_put_vara_all(ncid, varids[t], start, count, buf, mpi_test_rank == 0 ? n : 0, mpi_type(kTypes[t])));
  }
  for (long i = 0; i < (long)NREC * NY * NX; ++i) value_of(NC_FLOAT, i, 3, buf + i * 4);
  MPI_Offset start[3] = {0, 0, 0}, count[3] = {NREC, NY, NX};
  if (mpi_test_rank != 0) count[0] = 0;
  CHECK_OK(ncmpi_put_vara_float_all(ncid, *recvar, start, count, (float *)buf));
  free(buf);
  CHECK_OK(ncmpi_close(ncid));
}

static void open_both(const char *path, int omode, const char *spec) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", "native");
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, omode, info, &ncid_native));
  MPI_Info_set(info, "exa_connectors", spec);
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, omode, info, &ncid_cache));
  MPI_Info_free(&info);
  nreads = 0;  /* reads through this cache handle */
}

static void close_both(void) {
  CHECK_OK(ncmpi_close(ncid_native));
  CHECK_OK(ncmpi_close(ncid_cache));
}

static exa_cache_read_info stats(void) {
  exa_cache_read_info s;
  CHECK_OK(exa_cache_read_stats(ncid_cache, &s));
  return s;
}

/* Read-only: sweeps of every type, collective and independent. */
static void read_only_sweeps(const char *path, const char *spec, const int *varids, int recvar) {
  open_both(path, NC_NOWRITE, spec);
  for (int t = 0; t < NTYPES; ++t) {
    sweep_x(varids[t], kTypes[t], 1, 1);
    if (kTypes[t] == NC_CHAR) continue;
    for (size_t m = 0; m < sizeof kAlso / sizeof kAlso[0]; ++m) sweep_x(varids[t], kAlso[m], 1, 1);
  }
  exa_cache_read_info s = stats();
  CHECK(s.served_reads > 0);
  CHECK(s.fetched_chunks > 0);
  CHECK(s.served_reads + s.direct_reads == (long long)nreads);
  sweep_x(varids[3], NC_INT, 1, 2);  /* strided inside the chunks */
  sweep_x(varids[5], NC_FLOAT, 1, 3);
  sweep_zyx(varids[4], NC_FLOAT);
  sweep_zyx(varids[9], NC_INT64);
  /* The record variable, record by record (and past the last one: an error both ways). */
  for (int r = 0; r <= NREC; ++r) {
    MPI_Offset start[3] = {r, 0, 0}, count[3] = {1, NY, NX}, stride[3] = {1, 1, 1};
    read_both(recvar, NC_FLOAT, start, count, stride, 3, 1);
  }
  const long long served_before = stats().served_reads;
  CHECK_OK(ncmpi_begin_indep_data(ncid_native));
  CHECK_OK(ncmpi_begin_indep_data(ncid_cache));
  for (int rep = 0; rep <= mpi_test_rank; ++rep) sweep_x(varids[6], NC_UBYTE, 0, 1);  /* unequal work */
  CHECK_OK(ncmpi_end_indep_data(ncid_native));
  CHECK_OK(ncmpi_end_indep_data(ncid_cache));
  CHECK(stats().served_reads > served_before);
  close_both();
}

/* Writes between reads, through the cache handle (its log) and by other ranks. */
static void write_between_reads(const char *path, const char *spec, const int *varids, int recvar) {
  open_both(path, NC_WRITE, spec);
  const int v = varids[3]; /* NC_INT */
  for (int gen = 1; gen <= 3; ++gen) {
    /* Half a sweep: the next chunks are prefetched. */
    for (int k = 0; k < NCHUNK / 2; ++k) {
      MPI_Offset start[3] = {0, 0, k * CX}, count[3] = {NZ, NY, CX}, stride[3] = {1, 1, 1};
      read_both(v, NC_INT, start, count, stride, 3, 1);
    }
    /* Rank r writes into the chunk after the half on z = r % NZ; the write
     * goes to the cache handle's log (and the native handle sees it only once
     * it is drained: the cache handle's reads drain first, so read it first). */
    int vals[NY * CX];
    for (int i = 0; i < NY * CX; ++i) vals[i] = gen * 100000 + mpi_test_rank * 1000 + i;
    MPI_Offset ws[3] = {mpi_test_rank % NZ, 0, (NCHUNK / 2) * CX + (gen - 1) * 2},
               wc[3] = {mpi_test_rank < NZ ? 1 : 0, NY, CX};
    if (gen == 2) {  /* a nonblocking put */
      int req = NC_REQ_NULL, st = NC_NOERR;
      CHECK_OK(ncmpi_iput_vara_int(ncid_cache, v, ws, wc, vals, &req));
      CHECK_OK(ncmpi_wait_all(ncid_cache, 1, &req, &st));
      CHECK_OK(st);
    } else {
      CHECK_OK(ncmpi_put_vara_int_all(ncid_cache, v, ws, wc, vals));
    }
    int *got = malloc(sizeof(int) * NZ * NY * NX);
    for (int k = NCHUNK / 2; k < NCHUNK; ++k) {
      MPI_Offset start[3] = {0, 0, k * CX}, count[3] = {NZ, NY, CX};
      CHECK_OK(ncmpi_get_vara_int_all(ncid_cache, v, start, count, got));
      /* What the model says: generation-0 values, or what the ranks wrote. */
      for (int z = 0; z < NZ; ++z)
        for (int y = 0; y < NY; ++y)
          for (int x = 0; x < CX; ++x) {
            const long gx = k * CX + x, i = ((long)z * NY + y) * NX + gx;
            int want;
            value_of(NC_INT, i, 0, &want);
            for (int g = 1; g <= gen; ++g) {
              const long wx0 = (NCHUNK / 2) * CX + (g - 1) * 2;
              for (int r = 0; r < mpi_test_nprocs && r < NZ; ++r)
                if (z == r && gx >= wx0 && gx < wx0 + CX) want = g * 100000 + r * 1000 + y * CX + (int)(gx - wx0);
            }
            if (got[(z * NY + y) * CX + x] != want) {
              if (mpi_test_failures < 5)
                fprintf(stderr, "[rank %d] gen %d chunk %d (%d,%d,%d): %d, want %d\n", mpi_test_rank, gen, k, z, y,
                        x, got[(z * NY + y) * CX + x], want);
              mpi_test_failures++;
            }
          }
    }
    free(got);
  }
  /* A new record (the record dimension grows) read after reads of the others. */
  for (int r = 0; r < NREC; ++r) {
    MPI_Offset start[3] = {r, 0, 0}, count[3] = {1, NY, NX}, stride[3] = {1, 1, 1};
    read_both(recvar, NC_FLOAT, start, count, stride, 3, 1);
  }
  float row[NY * NX];
  for (int i = 0; i < NY * NX; ++i) row[i] = 0.5f * (float)i + 7.0f;
  MPI_Offset rs[3] = {NREC, 0, 0}, rc[3] = {mpi_test_rank == 0 ? 1 : 0, NY, NX};
  CHECK_OK(ncmpi_put_vara_float_all(ncid_cache, recvar, rs, rc, row));
  float back[NY * NX];
  MPI_Offset bc[3] = {1, NY, NX};
  CHECK_OK(ncmpi_get_vara_float_all(ncid_cache, recvar, rs, bc, back));
  CHECK(memcmp(back, row, sizeof row) == 0);
  /* Independent mode: rank 0 writes, a barrier, every rank reads it. */
  for (int k = 0; k < NCHUNK; ++k) {
    MPI_Offset start[3] = {0, 0, k * CX}, count[3] = {NZ, NY, CX}, stride[3] = {1, 1, 1};
    read_both(varids[4], NC_FLOAT, start, count, stride, 3, 1);
  }
  CHECK_OK(ncmpi_begin_indep_data(ncid_cache));
  float fv[NY * CX];
  for (int i = 0; i < NY * CX; ++i) fv[i] = -1.0f - (float)i;
  MPI_Offset fs[3] = {1, 0, NX - CX}, fc[3] = {1, NY, CX};
  if (mpi_test_rank == 0) CHECK_OK(ncmpi_put_vara_float(ncid_cache, varids[4], fs, fc, fv));
  MPI_Barrier(MPI_COMM_WORLD);
  float fb[NY * CX];
  CHECK_OK(ncmpi_get_vara_float(ncid_cache, varids[4], fs, fc, fb));
  CHECK(memcmp(fb, fv, sizeof fv) == 0);
  CHECK_OK(ncmpi_end_indep_data(ncid_cache));
  close_both();
}

int main(int argc, char **argv) {
  if (CACHE_PREFETCH_THREADS) setenv("MPI_TEST_THREAD_MULTIPLE", "1", 1);
  mpi_test_init(&argc, &argv);
  char path[1200], spec[2600];
  snprintf(path, sizeof path, "%s", mpi_test_path("prefetch.nc"));
  const char *settings[] = {"prefetch=3;ghost=1", "prefetch=1;ghost=0,0,1", "prefetch=4;ghost=2,1,1;size=64K"};
  int varids[NTYPES], recvar;
  for (int k = 0; k < (CACHE_PREFETCH_THREADS ? 1 : 3); ++k) {  /* the thread: the first settings only */
    snprintf(spec, sizeof spec, "cache{dir=%s;%s}", mpi_test_path("tier"), settings[k]);
    make_file(path, varids, &recvar);
    read_only_sweeps(path, spec, varids, recvar);
    write_between_reads(path, spec, varids, recvar);
  }
  return mpi_test_finish();
}
