#!/usr/bin/env python3
"""Generate exacdf's Fortran APIs from fortran/spec.txt and the C headers.

    gen_fortran.py SPEC INCLUDE_DIR OUT_DIR

writes into OUT_DIR:
  pnetcdf.inc       the Fortran 77 include (NF_* constants, nfmpi_* declarations)
  nfmpi_shims.c     one C function per nfmpi_* routine over exacdf's ncmpi_* (gfortran ABI)
  pnetcdf.f90       module pnetcdf (nf90mpi_*, generic over kinds and ranks)
  exacdf.f90        module exacdf (EXA_* constants of exacdf.h, exa_* calls)
The output is generated at build time and never edited by hand.
"""
import itertools
import os
import re
import sys

# Fortran type name of the F77 API -> (C API name, C type, Fortran declaration, F90 kind name)
TYPES = [
    ("text", "text", "char", "character", "Text"),
    ("int1", "schar", "signed char", "integer(kind=OneByteInt)", "OneByteInt"),
    ("int2", "short", "short", "integer(kind=TwoByteInt)", "TwoByteInt"),
    ("int", "int", "int", "integer(kind=FourByteInt)", "FourByteInt"),
    ("real", "float", "float", "real(kind=FourByteReal)", "FourByteReal"),
    ("double", "double", "double", "real(kind=EightByteReal)", "EightByteReal"),
    ("int8", "longlong", "long long", "integer(kind=EightByteInt)", "EightByteInt"),
]
CTYPE = {t[0]: t[2] for t in TYPES}
CTYPE["void"] = "void"
XTYPE = {"int1": "NF_BYTE", "int2": "NF_SHORT", "int": "NF_INT", "real": "NF_FLOAT",
         "double": "NF_DOUBLE", "int8": "NF_INT64"}
NB_OPS = [("iput", "in"), ("iget", "out"), ("bput", "in")]
INDEX_KINDS = ("varid", "dimid", "attnum")
ARRAY_NAMES = ("reqs", "statuses", "ncids")


class Routine:
    def __init__(self, name, cfunc, args, special=None):
        self.name, self.cfunc, self.args, self.special = name, cfunc, args, special


def parse_arg(text):
    kind, _, rest = text.partition(":")
    if kind in ("in", "out"):
        btype, _, name = rest.partition(":")
        return (kind, name, btype)
    return (kind, rest, None)


def expand(line):
    """The routines of one spec line, its {T}/{A}/{N} placeholders expanded."""
    fields = line.split("!")[0].split()
    notext = "!notext" in line
    types = [t for t in TYPES if not (notext and t[0] == "text")] if "{T}" in line else [None]
    alls = ["", "_all"] if "{A}" in line else [None]
    nbs = NB_OPS if "{N}" in line else [None]
    for t, a, nb in itertools.product(types, alls, nbs):
        def sub(s):
            if t is not None:
                s = s.replace("{T}", t[0]).replace("{C}", t[1])
            if a is not None:
                s = s.replace("{A}", a)
            if nb is not None:
                s = s.replace("{N}", nb[0]).replace("{D}", nb[1])
            return s
        fs = [sub(f) for f in fields]
        yield fs


def parse_spec(path):
    routines, consts, consts77 = [], [], []
    for raw in open(path):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("const "):
            consts.append(line.split()[1:])
            continue
        if line.startswith("const77 "):
            consts77.append(line.split()[1:])
            continue
        for fs in expand(line):
            name, cfunc, rest = fs[0], fs[1], fs[2:]
            special = None
            if rest and rest[0].startswith("@"):
                special, rest = rest[0][1:], rest[1:]
            routines.append(Routine(name, None if cfunc == "-" else cfunc,
                                    [parse_arg(a) for a in rest], special))
    return routines, consts, consts77


# --- C constants ---------------------------------------------------------------------------

def c_defines(include_dir):
    defs = {}
    for h in ("exacdf_nc_constants.h", "pnetcdf.h", "exacdf.h"):
        for line in open(os.path.join(include_dir, h)):
            m = re.match(r"#define\s+(\w+)\s+(.+?)\s*(/\*.*)?$", line)
            if m:
                defs[m.group(1)] = m.group(2)
    return defs


def c_value(defs, expr, depth=0):
    """Evaluate a C constant expression of the headers (numbers, casts, other constants)."""
    if depth > 20:
        raise ValueError(expr)
    e = re.sub(r"\((?:signed |unsigned )?(?:char|short|int|long long|long|size_t)\)", "", expr)
    e = re.sub(r"(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)(?:[uU]?[lL]{0,2}|[fF])\b", r"\1", e)
    e = re.sub(r"\b([A-Z_][A-Z0-9_]*)\b",
               lambda m: "(%r)" % c_value(defs, defs[m.group(1)], depth + 1), e)
    return eval(e, {"__builtins__": {}})


def constants(defs, consts):
    """(fortran type, name, value text) of every constant of the spec."""
    out = []
    for c in consts:
        if c == ["errors"]:
            for name in ["NC_NOERR", "NC2_ERR"] + [n for n in defs if n.startswith("NC_E")]:
                if name in ("NC_EMULTIDEFINE_FIRST", "NC_EMULTIDEFINE_LAST"):
                    continue
                try:
                    v = c_value(defs, defs[name])
                except (ValueError, KeyError, SyntaxError, TypeError, NameError):
                    continue
                if isinstance(v, int) and v <= 0:
                    out.append(("integer", "NF" + name[2:], str(v)))
            continue
        ftype, name, value = c
        v = c_value(defs, value) if re.match(r"[A-Z_]", value) else float(value) if (
            "." in value or "e" in value) else int(value)
        if ftype == "integer":
            text = str(int(v))
        elif ftype == "integer8":
            text = "%d_8" % int(v)
        elif ftype == "real":
            text = "%.16e" % v
        else:
            text = ("%.16e" % v).replace("e", "d")
        out.append((ftype, name, text))
    return out


FTYPE_DECL = {"integer": "integer", "integer8": "integer*8", "real": "real",
              "double": "doubleprecision"}


def f77_lines(text):
    """Fixed-form-safe lines (also valid free form): column 7, continued with '&'."""
    if len(text) <= 66:
        return ["      " + text]
    lines, cur = [], text
    while len(cur) > 60:
        cut = cur.rfind(",", 0, 60) + 1
        lines.append(cur[:cut])
        cur = cur[cut:]
    lines.append(cur)
    # '&' at col 73+ is ignored in fixed form; '&' in col 6 continues fixed form.
    return ["      " + lines[0].ljust(66) + "&"] + [
        "     &" + l.ljust(66) + ("&" if i < len(lines) - 2 else "")
        for i, l in enumerate(lines[1:])]


def gen_inc(routines, consts):
    out = ["! pnetcdf.inc -- generated by exacdf's fortran/gen_fortran.py; do not edit.",
           "! The Fortran 77 API of PnetCDF 1.12.3 as exacdf implements it."]
    for ftype, name, text in consts:
        out.append("      %s %s" % (FTYPE_DECL[ftype], name))
        out.append("      parameter (%s = %s)" % (name, text))
    for r in routines:
        ret = {"char80": "character*80", "logical": "logical"}.get(r.special, "integer")
        out.append("      %s nfmpi_%s" % (ret, r.name))
        out.append("      external nfmpi_%s" % r.name)
    return "\n".join(out) + "\n"


# --- C shims -------------------------------------------------------------------------------

def shim(r):
    params, hidden, pre, call, post = [], [], [], [], []
    needs_ndims = any(k in ("start", "count", "stride", "imap", "starts", "counts")
                      for k, _, _ in r.args)
    num_name = None
    ndims_arg = None
    for kind, name, btype in r.args:
        v = "f_" + name
        if kind in ("ncid", "int"):
            params.append("const int *%s" % v)
            call.append("*" + v)
            if kind == "int" and name == "num":
                num_name = v
            if kind == "int" and name == "ndims":
                ndims_arg = v
        elif kind in INDEX_KINDS:
            params.append("const int *%s" % v)
            call.append("*%s - 1" % v)
        elif kind == "off":
            params.append("const MPI_Offset *%s" % v)
            call.append("*" + v)
        elif kind == "recno":
            params.append("const MPI_Offset *%s" % v)
            call.append("*%s - 1" % v)
        elif kind == "str":
            params.append("const char *%s" % v)
            hidden.append("size_t %s_len" % v)
            pre.append("char *c_%s = NULL;" % name)
            pre.append("err = exa_f_str_in(&arena, %s, %s_len, &c_%s);" % (v, v, name))
            pre.append("if (err != NC_NOERR) goto done;")
            call.append("c_" + name)
        elif kind == "comm":
            params.append("const MPI_Fint *%s" % v)
            call.append("MPI_Comm_f2c(*%s)" % v)
        elif kind == "info":
            params.append("const MPI_Fint *%s" % v)
            call.append("MPI_Info_f2c(*%s)" % v)
        elif kind == "dtype":
            params.append("const MPI_Fint *%s" % v)
            call.append("MPI_Type_f2c(*%s)" % v)
        elif kind == "*int":
            params.append("int *%s" % v)
            call.append(v)
        elif kind == "*off":
            params.append("MPI_Offset *%s" % v)
            call.append(v)
        elif kind in ("*varid", "*dimid", "*attnum"):
            params.append("int *%s" % v)
            pre.append("int c_%s = -1;" % name)
            call.append("&c_" + name)
            post.append("*%s = c_%s + 1;" % (v, name))
        elif kind == "*unlimdim":
            params.append("int *%s" % v)
            pre.append("int c_%s = -1;" % name)
            call.append("&c_" + name)
            post.append("*%s = c_%s < 0 ? -1 : c_%s + 1;" % (v, name, name))
        elif kind in ("*str", "*cstr"):
            params.append("char *%s" % v)
            hidden.append("size_t %s_len" % v)
            pre.append("char *c_%s = NULL;" % name)
            size = "4096 + NC_MAX_NAME + 1" if name == "path" else "NC_MAX_NAME"
            pre.append("err = exa_f_scratch(&arena, %s, &c_%s);" % (size, name))
            pre.append("if (err != NC_NOERR) goto done;")
            call.append("c_" + name)
            post.append("exa_f_%s_out(c_%s, %s, %s_len);"
                        % ("str" if kind == "*str" else "cstr", name, v, v))
        elif kind == "*info":
            params.append("MPI_Fint *%s" % v)
            pre.append("MPI_Info c_%s = MPI_INFO_NULL;" % name)
            call.append("&c_" + name)
            post.append("*%s = MPI_Info_c2f(c_%s);" % (v, name))
        elif kind in ("start", "count", "stride", "imap"):
            params.append("const MPI_Offset *%s" % v)
            pre.append("MPI_Offset *c_%s = NULL;" % name)
            pre.append("err = exa_f_offsets(&arena, %s, ndims, %d, &c_%s);"
                       % (v, 1 if kind == "start" else 0, name))
            pre.append("if (err != NC_NOERR) goto done;")
            call.append("c_" + name)
        elif kind in ("starts", "counts"):
            params.append("const MPI_Offset *%s" % v)
            pre.append("MPI_Offset **c_%s = NULL;" % name)
            pre.append("err = exa_f_varn(&arena, %s, ndims, *%s, %d, &c_%s);"
                       % (v, num_name, 1 if kind == "starts" else 0, name))
            pre.append("if (err != NC_NOERR) goto done;")
            call.append("c_" + name)
        elif kind == "dimids":
            params.append("const int *%s" % v)
            pre.append("int *c_%s = NULL;" % name)
            pre.append("err = exa_f_dimids_in(&arena, %s, *%s, &c_%s);" % (v, ndims_arg, name))
            pre.append("if (err != NC_NOERR) goto done;")
            call.append("c_" + name)
        elif kind == "*dimids":
            params.append("int *%s" % v)
            pre.append("int vndims = 0;")
            pre.append("err = exa_f_var_ndims(*f_ncid, *f_varid - 1, &vndims);")
            pre.append("if (err != NC_NOERR) goto done;")
            pre.append("int *c_%s = NULL;" % name)
            pre.append("err = exa_f_ints(&arena, vndims, &c_%s);" % name)
            pre.append("if (err != NC_NOERR) goto done;")
            call.append("c_" + name)
            post.append("exa_f_dimids_out(c_%s, vndims, %s);" % (name, v))
        elif kind in ("in", "out"):
            const = "const " if kind == "in" else ""
            params.append("%s%s *%s" % (const, CTYPE[btype], v))
            if btype == "text":
                hidden.append("size_t %s_len" % v)
            call.append(v)
        else:
            raise ValueError("unknown argument kind %s in %s" % (kind, r.name))
    if needs_ndims:
        pre.insert(0, "if (err != NC_NOERR) goto done;")
        pre.insert(0, "err = exa_f_var_ndims(*f_ncid, *f_varid - 1, &ndims);")
        pre.insert(0, "int ndims = 0;")
    sig = "int nfmpi_%s_(%s)" % (r.name, ", ".join(params + hidden) or "void")
    body = ["exa_f_arena arena = {{0}, 0};", "int err = NC_NOERR;"] + pre
    body.append("err = %s(%s);" % (r.cfunc, ", ".join(call)))
    if post:
        body.append("if (err == NC_NOERR) {")
        body += ["  " + p for p in post]
        body.append("}")
    body += ["goto done;", "done:", "exa_f_arena_free(&arena);", "return err;"]
    return sig, body


def gen_shims(routines):
    out = ["/* nfmpi_shims.c -- generated by exacdf's fortran/gen_fortran.py; do not edit. */",
           "#include \"nfmpi_support.h\"", "",
           "#if defined(__GNUC__)",
           "#pragma GCC diagnostic ignored \"-Wunused-label\"",
           "#endif", ""]
    for r in routines:
        if r.cfunc is None:
            continue
        sig, body = shim(r)
        out.append(sig + ";")
        out.append(sig + " {")
        out += ["  " + b for b in body]
        out.append("}")
        out.append("")
    return "\n".join(out)


# --- Fortran 90 module pnetcdf -------------------------------------------------------------

def iface_decl(kind, name, btype):
    """Fortran declaration of one argument of an nfmpi_* routine (explicit interface)."""
    off = "integer(kind=MPI_OFFSET_KIND)"
    if kind in ("ncid", "int", "comm", "info", "dtype") + INDEX_KINDS:
        return "integer, intent(in) :: %s" % name
    if kind in ("off", "recno"):
        return "%s, intent(in) :: %s" % (off, name)
    if kind == "str":
        return "character(len=*), intent(in) :: %s" % name
    if kind == "*int":
        return "integer, intent(inout) :: %s%s" % (name, "(*)" if name in ARRAY_NAMES else "")
    if kind == "*off":
        return "%s, intent(out) :: %s" % (off, name)
    if kind in ("*varid", "*dimid", "*attnum", "*info", "*unlimdim"):
        return "integer, intent(out) :: %s" % name
    if kind in ("*str", "*cstr"):
        return "character(len=*), intent(inout) :: %s" % name
    if kind in ("start", "count", "stride", "imap", "starts", "counts"):
        return "%s, intent(in) :: %s(*)" % (off, name)
    if kind == "dimids":
        return "integer, intent(in) :: %s(*)" % name
    if kind == "*dimids":
        return "integer, intent(out) :: %s(*)" % name
    if kind in ("in", "out"):
        intent = "in" if kind == "in" else "inout"
        if btype == "text":
            return "character(len=*), intent(%s) :: %s(*)" % (intent, name)
        if kind == "out":
            return "type(*), intent(inout) :: %s(*)" % name
        return "type(*), intent(%s) :: %s(*)" % (intent, name)
    raise ValueError(kind)


def gen_interfaces(routines):
    out = ["  interface"]
    for r in routines:
        if r.special:
            continue
        names = [n for _, n, _ in r.args]
        out.append("    integer function nfmpi_%s(%s)" % (r.name, ", ".join(names)))
        out.append("      import :: MPI_OFFSET_KIND")
        for k, n, b in r.args:
            out.append("      " + iface_decl(k, n, b))
        out.append("    end function nfmpi_%s" % r.name)
    out.append("  end interface")
    out.append("  character(len=80), external :: nfmpi_strerror, nfmpi_strerrno, nfmpi_inq_libvers")
    out.append("  logical, external :: nfmpi_issyserr")
    return out


# nf90mpi_* routines that forward their arguments unchanged to nfmpi_*.
FORWARDED = """create open close enddef _enddef redef sync flush sync_numrecs abort begin_indep_data
end_indep_data set_fill def_dim rename_dim rename_var rename_att del_att copy_att inq_varid
inq_dimid inq_attname inq_format inq_file_format set_default_format inq_default_format
inq_put_size inq_get_size inq_header_size inq_header_extent inq_recsize inq_varoffset
inq_num_rec_vars inq_num_fix_vars inq_striping inq_path fill_var_rec delete inq_file_info
get_file_info wait wait_all cancel buffer_attach buffer_detach inq_buffer_usage inq_buffer_size
inq_nreqs inq_malloc_size inq_malloc_max_size inq_malloc_list inq_files_opened""".split()

KINDS = [t for t in TYPES if t[0] != "text"]
RANK_SHAPE = ["", "(:)", "(:,:)", "(:,:,:)", "(:,:,:,:)", "(:,:,:,:,:)", "(:,:,:,:,:,:)",
              "(:,:,:,:,:,:,:)"]


def forwarded(r):
    names = [n for _, n, _ in r.args]
    out = ["  function nf90mpi_%s(%s) result(err)" % (r.name, ", ".join(names))]
    for k, n, b in r.args:
        out.append("    " + iface_decl(k, n, b))
    out.append("    integer :: err")
    out.append("    err = nfmpi_%s(%s)" % (r.name, ", ".join(names)))
    out.append("  end function nf90mpi_%s" % r.name)
    return out


def var_proc(op, t, rank, coll):
    """nf90mpi_<op>_var of one type and rank: start/count/stride/map optional."""
    ftname, _, _, fdecl, kname = t
    nb = op in ("iput", "iget", "bput")
    put = op in ("put", "iput", "bput")
    base = "nf90mpi_%s_var" % op
    pname = "%s_%s%s%s" % (base, "%dD_" % rank if rank else "", kname, coll)
    intent = "in" if put else "inout"
    text = ftname == "text" and rank == 0  # a string: its characters run along dimension 1
    decl = "%s, intent(%s) :: values%s" % (fdecl_of(t), intent, RANK_SHAPE[rank])
    args = ["ncid", "varid", "values"] + (["req"] if nb else []) + ["start"]
    if rank or text:
        args += ["count", "stride", "map"]
    out = ["  function %s(%s) result(err)" % (pname, ", ".join(args)),
           "    integer, intent(in) :: ncid, varid", "    " + decl]
    if nb:
        out.append("    integer, intent(out) :: req")
    opt = "integer(kind=MPI_OFFSET_KIND), dimension(:), optional, intent(in) ::"
    out.append("    %s %s" % (opt, ", ".join(args[(4 if nb else 3):])))
    out += ["    integer :: err, nd",
            "    integer(kind=MPI_OFFSET_KIND), allocatable :: s(:), c(:), st(:)"]
    if rank == 0 and not text:
        out.append("    %s :: tmp(1)" % fdecl)
    out.append("    err = nfmpi_inq_varndims(ncid, varid, nd)")
    out.append("    if (err /= NF_NOERR) return")
    out.append("    allocate(s(nd), c(nd), st(nd))")
    out.append("    s = 1; c = 1; st = 1")
    out.append("    if (present(start)) s(1:min(nd, size(start))) = start(1:min(nd, size(start)))")
    if ftname == "text":
        # netCDF's Fortran 90 convention: a string's characters run along dimension 1, the
        # array's dimensions follow.
        out.append("    if (nd > 0) c(1) = len(values)")
        if rank:
            out.append("    if (nd > 1) call nf90mpi_shape_(c(2:), nd - 1, "
                       "shape(values, kind=MPI_OFFSET_KIND))")
    elif rank:
        out.append("    call nf90mpi_shape_(c, nd, shape(values, kind=MPI_OFFSET_KIND))")
    if rank or text:
        out.append("    if (present(count)) c(1:min(nd, size(count))) = count(1:min(nd, size(count)))")
        out.append("    if (present(stride)) st(1:min(nd, size(stride))) = stride(1:min(nd, size(stride)))")
    reqarg = ", req" if nb else ""
    sfx = coll
    if rank == 0 and not text:
        if put:
            out.append("    tmp(1) = values")
        out.append("    err = nfmpi_%s_var1_%s%s(ncid, varid, s, tmp%s)" % (op, ftname, sfx, reqarg))
        if not put:
            out.append("    if (err == NF_NOERR) values = tmp(1)")
    else:
        v = "values"
        out.append("    if (present(map)) then")
        out.append("      err = nfmpi_%s_varm_%s%s(ncid, varid, s, c, st, map, %s%s)"
                   % (op, ftname, sfx, v, reqarg))
        out.append("    else if (present(stride)) then")
        out.append("      err = nfmpi_%s_vars_%s%s(ncid, varid, s, c, st, %s%s)"
                   % (op, ftname, sfx, v, reqarg))
        out.append("    else")
        out.append("      err = nfmpi_%s_vara_%s%s(ncid, varid, s, c, %s%s)"
                   % (op, ftname, sfx, v, reqarg))
        out.append("    end if")
    out.append("  end function %s" % pname)
    return pname, out


def fdecl_of(t):
    return "character(len=*)" if t[0] == "text" else t[3]


def varn_proc(op, t, rank, coll):
    """nf90mpi_<op>_varn of one type and rank: num subarrays start(:, i), count(:, i)."""
    ftname, kname = t[0], t[4]
    nb = op in ("iput", "iget", "bput")
    put = op in ("put", "iput", "bput")
    pname = "nf90mpi_%s_varn_%s%s%s" % (op, "%dD_" % rank if rank else "", kname, coll)
    intent = "in" if put else "inout"
    vname = "values" if rank else "value"
    args = ["ncid", "varid", vname] + (["req"] if nb else []) + (["num", "start", "count"]
                                                               if rank else ["start"])
    out = ["  function %s(%s) result(err)" % (pname, ", ".join(args)),
           "    integer, intent(in) :: ncid, varid",
           "    %s, intent(%s) :: %s%s" % (fdecl_of(t), intent, vname, RANK_SHAPE[rank])]
    if nb:
        out.append("    integer, intent(out) :: req")
    out.append("    integer(kind=MPI_OFFSET_KIND), intent(in) :: start(:, :)")
    if rank:
        out.append("    integer, intent(in) :: num")
        out.append("    integer(kind=MPI_OFFSET_KIND), optional, intent(in) :: count(:, :)")
    out += ["    integer :: err, nd, n",
            "    integer(kind=MPI_OFFSET_KIND), allocatable :: c(:, :)"]
    if rank == 0:
        out.append("    %s :: tmp(1)" % ("character(len=1)" if ftname == "text" else t[3]))
    out += ["    err = nfmpi_inq_varndims(ncid, varid, nd)",
            "    if (err /= NF_NOERR) return",
            "    n = %s" % ("num" if rank else "1"),
            "    allocate(c(max(nd, 1), max(n, 1)))",
            "    c = 1"]
    if rank:
        out.append("    if (present(count)) c(1:nd, 1:n) = count(1:nd, 1:n)")
    reqarg = ", req" if nb else ""
    buf = "values" if rank else "tmp"
    if rank == 0 and put:
        out.append("    tmp(1) = value")
    out.append("    err = nfmpi_%s_varn_%s%s(ncid, varid, n, start, c, %s%s)"
               % (op, ftname, coll, buf, reqarg))
    if rank == 0 and not put:
        out.append("    if (err == NF_NOERR) value = tmp(1)")
    out.append("  end function %s" % pname)
    return pname, out


def vard_proc(op, t, rank, coll):
    """nf90mpi_<op>_vard: a file type and a buffer type of the caller's making."""
    pname = "nf90mpi_%s_vard_%s%s%s" % (op, "%dD_" % rank if rank else "", t[4], coll)
    intent = "in" if op == "put" else "inout"
    out = ["  function %s(ncid, varid, filetype, buf, bufcount, buftype) result(err)" % pname,
           "    integer, intent(in) :: ncid, varid, filetype, buftype",
           "    %s, intent(%s) :: buf%s" % (fdecl_of(t), intent, RANK_SHAPE[rank]),
           "    integer(kind=MPI_OFFSET_KIND), intent(in) :: bufcount",
           "    integer :: err"]
    if rank == 0:
        out.append("    %s :: tmp(1)" % ("character(len=len(buf))" if t[0] == "text" else t[3]))
        if op == "put":
            out.append("    tmp(1) = buf")
        out.append("    err = nfmpi_%s_vard%s(ncid, varid, filetype, tmp, bufcount, buftype)"
                   % (op, coll))
        if op == "get":
            out.append("    if (err == NF_NOERR) buf = tmp(1)")
    else:
        out.append("    err = nfmpi_%s_vard%s(ncid, varid, filetype, buf, bufcount, buftype)"
                   % (op, coll))
    out.append("  end function %s" % pname)
    return pname, out


def fill_procs(t):
    """nf90mpi_def_var_fill / nf90mpi_inq_var_fill of one type (a scalar fill value)."""
    decl = "character(len=1)" if t[0] == "text" else t[3]
    yield "def", [
        "  function nf90mpi_def_var_fill_%s(ncid, varid, no_fill, fill_value) result(err)" % t[4],
        "    integer, intent(in) :: ncid, varid, no_fill",
        "    %s, intent(in) :: fill_value" % decl,
        "    integer :: err",
        "    %s :: tmp(1)" % decl,
        "    tmp(1) = fill_value",
        "    err = nfmpi_def_var_fill(ncid, varid, no_fill, tmp)",
        "  end function nf90mpi_def_var_fill_%s" % t[4]]
    yield "inq", [
        "  function nf90mpi_inq_var_fill_%s(ncid, varid, no_fill, fill_value) result(err)" % t[4],
        "    integer, intent(in) :: ncid, varid",
        "    integer, intent(out) :: no_fill",
        "    %s, intent(inout) :: fill_value" % decl,
        "    integer :: err",
        "    %s :: tmp(1)" % decl,
        "    err = nfmpi_inq_var_fill(ncid, varid, no_fill, tmp)",
        "    if (err == NF_NOERR) fill_value = tmp(1)",
        "  end function nf90mpi_inq_var_fill_%s" % t[4]]


def att_procs():
    procs = {"put": [], "get": []}
    out = []
    # text
    out += ["  function nf90mpi_put_att_Text(ncid, varid, name, values) result(err)",
            "    integer, intent(in) :: ncid, varid",
            "    character(len=*), intent(in) :: name, values",
            "    integer :: err",
            "    err = nfmpi_put_att_text(ncid, varid, name, "
            "int(len(values), MPI_OFFSET_KIND), values)",
            "  end function nf90mpi_put_att_Text",
            "  function nf90mpi_get_att_Text(ncid, varid, name, values) result(err)",
            "    integer, intent(in) :: ncid, varid",
            "    character(len=*), intent(in) :: name",
            "    character(len=*), intent(out) :: values",
            "    integer :: err",
            "    integer(kind=MPI_OFFSET_KIND) :: n",
            "    character(len=1), allocatable :: tmp(:)",
            "    integer(kind=MPI_OFFSET_KIND) :: i",
            "    values = ' '",
            "    err = nfmpi_inq_attlen(ncid, varid, name, n)",
            "    if (err /= NF_NOERR) return",
            "    allocate(tmp(max(n, 1_MPI_OFFSET_KIND)))",
            "    err = nfmpi_get_att_text(ncid, varid, name, tmp)",
            "    if (err /= NF_NOERR) return",
            "    do i = 1, min(n, int(len(values), MPI_OFFSET_KIND))",
            "      values(i:i) = tmp(i)",
            "    end do",
            "  end function nf90mpi_get_att_Text"]
    procs["put"].append("nf90mpi_put_att_Text")
    procs["get"].append("nf90mpi_get_att_Text")
    for ftname, _, _, fdecl, kname in KINDS:
        for rank in (0, 1):
            sh = "(:)" if rank else ""
            nm = "%s%s" % ("1D_" if rank else "", kname)
            out += ["  function nf90mpi_put_att_%s(ncid, varid, name, values) result(err)" % nm,
                    "    integer, intent(in) :: ncid, varid",
                    "    character(len=*), intent(in) :: name",
                    "    %s, intent(in) :: values%s" % (fdecl, sh),
                    "    integer :: err"]
            if rank:
                out.append("    err = nfmpi_put_att_%s(ncid, varid, name, %s, "
                           "size(values, kind=MPI_OFFSET_KIND), values)" % (ftname, XTYPE[ftname]))
            else:
                out.append("    err = nfmpi_put_att_%s(ncid, varid, name, %s, 1_MPI_OFFSET_KIND, "
                           "(/values/))" % (ftname, XTYPE[ftname]))
            out.append("  end function nf90mpi_put_att_%s" % nm)
            out += ["  function nf90mpi_get_att_%s(ncid, varid, name, values) result(err)" % nm,
                    "    integer, intent(in) :: ncid, varid",
                    "    character(len=*), intent(in) :: name",
                    "    %s, intent(out) :: values%s" % (fdecl, sh),
                    "    integer :: err",
                    "    integer(kind=MPI_OFFSET_KIND) :: n",
                    "    %s, allocatable :: tmp(:)" % fdecl,
                    "    err = nfmpi_inq_attlen(ncid, varid, name, n)",
                    "    if (err /= NF_NOERR) return",
                    "    allocate(tmp(max(n, 1_MPI_OFFSET_KIND)))",
                    "    err = nfmpi_get_att_%s(ncid, varid, name, tmp)" % ftname,
                    "    if (err /= NF_NOERR) return"]
            if rank:
                out.append("    values(1:min(size(values, kind=MPI_OFFSET_KIND), n)) = "
                           "tmp(1:min(size(values, kind=MPI_OFFSET_KIND), n))")
            else:
                out.append("    values = tmp(1)")
            out.append("  end function nf90mpi_get_att_%s" % nm)
            procs["put"].append("nf90mpi_put_att_" + nm)
            procs["get"].append("nf90mpi_get_att_" + nm)
    return procs, out


MODULE_EXTRA = """
  subroutine nf90mpi_shape_(c, nd, shp)
    integer(kind=MPI_OFFSET_KIND), intent(inout) :: c(:)
    integer, intent(in) :: nd
    integer(kind=MPI_OFFSET_KIND), intent(in) :: shp(:)
    integer :: n
    n = min(nd, size(shp))
    c(1:n) = shp(1:n)
  end subroutine nf90mpi_shape_

  function nf90mpi_strerror(ncerr) result(msg)
    integer, intent(in) :: ncerr
    character(len=80) :: msg
    msg = nfmpi_strerror(ncerr)
  end function nf90mpi_strerror
  function nf90mpi_strerrno(ncerr) result(msg)
    integer, intent(in) :: ncerr
    character(len=80) :: msg
    msg = nfmpi_strerrno(ncerr)
  end function nf90mpi_strerrno
  function nf90mpi_inq_libvers() result(msg)
    character(len=80) :: msg
    msg = nfmpi_inq_libvers()
  end function nf90mpi_inq_libvers
  function nf90mpi_issyserr(ncerr) result(yes)
    integer, intent(in) :: ncerr
    logical :: yes
    yes = nfmpi_issyserr(ncerr)
  end function nf90mpi_issyserr

  function nf90mpi_def_var_scalar(ncid, name, xtype, varid) result(err)
    integer, intent(in) :: ncid, xtype
    character(len=*), intent(in) :: name
    integer, intent(out) :: varid
    integer :: err
    integer :: none(1)
    none = 0
    err = nfmpi_def_var(ncid, name, xtype, 0, none, varid)
  end function nf90mpi_def_var_scalar
  function nf90mpi_def_var_onedim(ncid, name, xtype, dimids, varid) result(err)
    integer, intent(in) :: ncid, xtype, dimids
    character(len=*), intent(in) :: name
    integer, intent(out) :: varid
    integer :: err
    err = nfmpi_def_var(ncid, name, xtype, 1, (/dimids/), varid)
  end function nf90mpi_def_var_onedim
  function nf90mpi_def_var_manydims(ncid, name, xtype, dimids, varid) result(err)
    integer, intent(in) :: ncid, xtype
    integer, dimension(:), intent(in) :: dimids
    character(len=*), intent(in) :: name
    integer, intent(out) :: varid
    integer :: err
    err = nfmpi_def_var(ncid, name, xtype, size(dimids), dimids, varid)
  end function nf90mpi_def_var_manydims

  function nf90mpi_inquire(ncid, nDimensions, nVariables, nAttributes, unlimitedDimId, &
                           formatNum) result(err)
    integer, intent(in) :: ncid
    integer, optional, intent(out) :: nDimensions, nVariables, nAttributes, unlimitedDimId, &
                                      formatNum
    integer :: err, nd, nv, na, ul, fm
    err = nfmpi_inq(ncid, nd, nv, na, ul)
    if (err /= NF_NOERR) return
    if (present(nDimensions)) nDimensions = nd
    if (present(nVariables)) nVariables = nv
    if (present(nAttributes)) nAttributes = na
    if (present(unlimitedDimId)) unlimitedDimId = ul
    if (present(formatNum)) then
      err = nfmpi_inq_format(ncid, fm)
      formatNum = fm
    end if
  end function nf90mpi_inquire
  function nf90mpi_inquire_dimension(ncid, dimid, name, len) result(err)
    integer, intent(in) :: ncid, dimid
    character(len=*), optional, intent(out) :: name
    integer(kind=MPI_OFFSET_KIND), optional, intent(out) :: len
    integer :: err
    character(len=NF_MAX_NAME) :: nm
    integer(kind=MPI_OFFSET_KIND) :: ln
    err = nfmpi_inq_dim(ncid, dimid, nm, ln)
    if (err /= NF_NOERR) return
    if (present(name)) name = nm
    if (present(len)) len = ln
  end function nf90mpi_inquire_dimension
  function nf90mpi_inquire_variable(ncid, varid, name, xtype, ndims, dimids, nAtts) result(err)
    integer, intent(in) :: ncid, varid
    character(len=*), optional, intent(out) :: name
    integer, optional, intent(out) :: xtype, ndims, nAtts
    integer, dimension(:), optional, intent(out) :: dimids
    integer :: err, xt, nd, na
    character(len=NF_MAX_NAME) :: nm
    integer, allocatable :: ids(:)
    err = nfmpi_inq_varndims(ncid, varid, nd)
    if (err /= NF_NOERR) return
    allocate(ids(max(nd, 1)))
    err = nfmpi_inq_var(ncid, varid, nm, xt, nd, ids, na)
    if (err /= NF_NOERR) return
    if (present(name)) name = nm
    if (present(xtype)) xtype = xt
    if (present(ndims)) ndims = nd
    if (present(nAtts)) nAtts = na
    if (present(dimids)) then
      if (size(dimids) < nd) then
        err = NF_EINVAL
        return
      end if
      dimids(1:nd) = ids(1:nd)
    end if
  end function nf90mpi_inquire_variable
  function nf90mpi_inquire_attribute(ncid, varid, name, xtype, len, attnum) result(err)
    integer, intent(in) :: ncid, varid
    character(len=*), intent(in) :: name
    integer, optional, intent(out) :: xtype, attnum
    integer(kind=MPI_OFFSET_KIND), optional, intent(out) :: len
    integer :: err, xt, an
    integer(kind=MPI_OFFSET_KIND) :: ln
    err = nfmpi_inq_att(ncid, varid, name, xt, ln)
    if (err /= NF_NOERR) return
    if (present(xtype)) xtype = xt
    if (present(len)) len = ln
    if (present(attnum)) then
      err = nfmpi_inq_attid(ncid, varid, name, an)
      attnum = an
    end if
  end function nf90mpi_inquire_attribute
"""


def gen_module(routines, consts):
    by_name = {r.name: r for r in routines}
    head = ["! pnetcdf.f90 -- generated by exacdf's fortran/gen_fortran.py; do not edit.",
            "module pnetcdf",
            "  use mpi",
            "  implicit none",
            "  integer, parameter :: OneByteInt = selected_int_kind(2), "
            "TwoByteInt = selected_int_kind(4)",
            "  integer, parameter :: FourByteInt = selected_int_kind(9), "
            "EightByteInt = selected_int_kind(18)",
            "  integer, parameter :: FourByteReal = selected_real_kind(P=6, R=37)",
            "  integer, parameter :: EightByteReal = selected_real_kind(P=13, R=307)"]
    ftype = {"integer": "integer", "integer8": "integer(kind=8)", "real": "real",
             "double": "double precision"}
    for t, name, text in consts:
        head.append("  %s, parameter :: %s = %s" % (ftype[t], name, text))
        if name.lower().startswith("nf_"):
            head.append("  %s, parameter :: nf90_%s = %s" % (ftype[t], name[3:], text))
    head.append("  integer(kind=MPI_OFFSET_KIND), parameter :: nf90mpi_unlimited = 0")
    head += gen_interfaces(routines)
    body = []
    generics = {}
    for name in FORWARDED:
        body += forwarded(by_name[name])
    for op in ("put", "get", "iput", "iget", "bput"):
        colls = ["", "_all"] if op in ("put", "get") else [""]
        for coll in colls:
            gname = "nf90mpi_%s_var%s" % (op, coll)
            for t in TYPES:
                for rank in range(8):
                    pname, code = var_proc(op, t, rank, coll)
                    generics.setdefault(gname, []).append(pname)
                    body += code
            gname = "nf90mpi_%s_varn%s" % (op, coll)
            for t in TYPES:
                for rank in range(8):
                    pname, code = varn_proc(op, t, rank, coll)
                    generics.setdefault(gname, []).append(pname)
                    body += code
    for op in ("put", "get"):
        for coll in ("", "_all"):
            gname = "nf90mpi_%s_vard%s" % (op, coll)
            for t in TYPES:
                for rank in range(8):
                    pname, code = vard_proc(op, t, rank, coll)
                    generics.setdefault(gname, []).append(pname)
                    body += code
    for t in TYPES:
        for which, code in fill_procs(t):
            generics.setdefault("nf90mpi_%s_var_fill" % which, []).append(
                "nf90mpi_%s_var_fill_%s" % (which, t[4]))
            body += code
    procs, code = att_procs()
    body += code
    generics["nf90mpi_put_att"] = procs["put"]
    generics["nf90mpi_get_att"] = procs["get"]
    generics["nf90mpi_def_var"] = ["nf90mpi_def_var_scalar", "nf90mpi_def_var_onedim",
                                   "nf90mpi_def_var_manydims"]
    # As PnetCDF's module: kinds and specific procedures are not exported, only the generics.
    head.append("  private :: OneByteInt, TwoByteInt, FourByteInt, EightByteInt, FourByteReal, "
                "EightByteReal, nf90mpi_shape_")
    for g, ps in generics.items():
        for p in ps:
            head.append("  private :: %s" % p)
        head.append("  interface %s" % g)
        for p in ps:
            head.append("    module procedure %s" % p)
        head.append("  end interface %s" % g)
    return "\n".join(head + ["contains"] + body + [MODULE_EXTRA, "end module pnetcdf", ""])


EXACDF_CONSTANTS = ["EXA_INDEP_DEFINE", "EXA_FORMAT_PARTITIONED", "EXA_FORMAT_PARTITIONED_V1",
                    "EXA_MAX_PATH", "EXACDF_VERSION_MAJOR", "EXACDF_VERSION_MINOR",
                    "EXACDF_VERSION_PATCH"]

EXACDF_PROCS = """
  function exa_inq_libvers() result(v)
    character(len=80) :: v
    character(kind=c_char), pointer :: p(:)
    integer :: i
    call c_f_pointer(c_exa_inq_libvers(), p, (/80/))
    v = ' '
    do i = 1, 80
      if (p(i) == c_null_char) exit
      v(i:i) = p(i)
    end do
  end function exa_inq_libvers
  function exa_inq_io_calls(ncid, ncalls) result(err)
    integer, intent(in) :: ncid
    integer(kind=MPI_OFFSET_KIND), intent(out) :: ncalls
    integer :: err
    integer(c_long_long) :: n
    err = c_exa_inq_io_calls(ncid, n)
    ncalls = n
  end function exa_inq_io_calls
  function exa_inq_blocks(ncid, nblocks) result(err)
    integer, intent(in) :: ncid
    integer(kind=MPI_OFFSET_KIND), intent(out) :: nblocks
    integer :: err
    integer(c_long_long) :: n
    err = c_exa_inq_blocks(ncid, n)
    nblocks = n
  end function exa_inq_blocks
  function exa_inq_generation(ncid, generation, newer_damaged) result(err)
    integer, intent(in) :: ncid
    integer(kind=8), intent(out) :: generation
    integer, intent(out) :: newer_damaged
    integer :: err
    integer(c_long_long) :: g
    integer(c_int) :: d
    err = c_exa_inq_generation(ncid, g, d)
    generation = g
    newer_damaged = d
  end function exa_inq_generation
"""

EXACDF_INTERFACES = """
  interface
    function c_exa_inq_libvers() bind(C, name='exa_inq_libvers')
      import :: c_ptr
      type(c_ptr) :: c_exa_inq_libvers
    end function c_exa_inq_libvers
    integer(c_int) function c_exa_inq_io_calls(ncid, ncalls) bind(C, name='exa_inq_io_calls')
      import :: c_int, c_long_long
      integer(c_int), value :: ncid
      integer(c_long_long) :: ncalls
    end function c_exa_inq_io_calls
    integer(c_int) function c_exa_inq_blocks(ncid, nblocks) bind(C, name='exa_inq_blocks')
      import :: c_int, c_long_long
      integer(c_int), value :: ncid
      integer(c_long_long) :: nblocks
    end function c_exa_inq_blocks
    integer(c_int) function c_exa_inq_generation(ncid, generation, newer_damaged) &
        bind(C, name='exa_inq_generation')
      import :: c_int, c_long_long
      integer(c_int), value :: ncid
      integer(c_long_long) :: generation
      integer(c_int) :: newer_damaged
    end function c_exa_inq_generation
  end interface
"""


def gen_exacdf_module(defs):
    out = ["! exacdf.f90 -- generated by exacdf's fortran/gen_fortran.py; do not edit.",
           "! The extensions of exacdf.h for Fortran (use it with, or instead of, pnetcdf).",
           "module exacdf",
           "  use, intrinsic :: iso_c_binding",
           "  use pnetcdf",
           "  implicit none"]
    for name in EXACDF_CONSTANTS:
        out.append("  integer, parameter :: %s = %d" % (name, c_value(defs, defs[name])))
    out.append(EXACDF_INTERFACES)
    out.append("contains")
    out.append(EXACDF_PROCS)
    out.append("end module exacdf")
    return "\n".join(out) + "\n"


def write_if_changed(path, text):
    if os.path.exists(path) and open(path).read() == text:
        return
    with open(path, "w") as f:
        f.write(text)


def main():
    spec, include_dir, out_dir = sys.argv[1:4]
    routines, consts, consts77 = parse_spec(spec)
    defs = c_defines(include_dir)
    values = constants(defs, consts)
    os.makedirs(out_dir, exist_ok=True)
    write_if_changed(os.path.join(out_dir, "pnetcdf.inc"),
                     gen_inc(routines, values + constants(defs, consts77)))
    write_if_changed(os.path.join(out_dir, "nfmpi_shims.c"), gen_shims(routines))
    write_if_changed(os.path.join(out_dir, "pnetcdf.f90"), gen_module(routines, values))
    write_if_changed(os.path.join(out_dir, "exacdf.f90"), gen_exacdf_module(defs))


if __name__ == "__main__":
    main()
