"""bind(C) interfaces of module papi, from the C prototypes of papi.h and
tally.h (used by gen_fheaders.py).

A prototype `PAPI_EXPORT ret name(args);` becomes one interface body; the
C types map to Fortran as below, and a type outside the map is an error
(so papi.h cannot drift from what the module declares without the build
saying so).  Strings are C strings: trim(name)//c_null_char in, arrays of
character(kind=c_char) out."""
import re

# The C functions the module binds, in module order.
BIND = [
    "PAPI_library_init", "PAPI_is_initialized", "PAPI_shutdown",
    "PAPI_create_eventset", "PAPI_destroy_eventset", "PAPI_cleanup_eventset",
    "PAPI_add_event", "PAPI_add_named_event", "PAPI_remove_event",
    "PAPI_event_name_to_code", "PAPI_event_code_to_name",
    "PAPI_query_event", "PAPI_query_named_event", "PAPI_num_events",
    "PAPI_state", "PAPI_start", "PAPI_stop", "PAPI_read", "PAPI_accum",
    "PAPI_write", "PAPI_reset", "PAPI_register_thread",
    "PAPI_unregister_thread", "PAPI_thread_id",
    "PAPI_get_real_cyc", "PAPI_get_real_usec", "PAPI_get_real_nsec",
    "PAPI_get_virt_cyc", "PAPI_get_virt_usec", "PAPI_get_virt_nsec",
    "PAPI_strerror", "PAPI_hl_region_begin", "PAPI_hl_read",
    "PAPI_hl_region_end", "PAPI_hl_stop",
    "tally_region_begin", "tally_region_end",
]

# C argument type -> (kind to import, declaration with {n} for the name)
ARGS = {
    "int": ("c_int", "integer(c_int), value :: {n}"),
    "int *": ("c_int", "integer(c_int) :: {n}"),
    "long long *": ("c_long_long", "integer(c_long_long) :: {n}(*)"),
    "const char *": ("c_char", "character(kind=c_char), intent(in) :: {n}(*)"),
    "char *": ("c_char", "character(kind=c_char) :: {n}(*)"),
}
# C return type -> (kind to import, declaration of the result r)
RESULTS = {
    "int": ("c_int", "integer(c_int) :: rc", "rc"),
    "long long": ("c_long_long", "integer(c_long_long) :: t", "t"),
    "unsigned long": ("c_long", "integer(c_long) :: id", "id"),
    "char *": ("c_ptr", "type(c_ptr) :: p", "p"),
    "const char *": ("c_ptr", "type(c_ptr) :: p", "p"),
}
PROTO = re.compile(r"PAPI_EXPORT\s+([\w\s]+?\**)\s*\b(\w+)\s*\(([^)]*)\)\s*;")


def norm(ctype):
    """'long long*' / 'long long  *' -> 'long long *'."""
    t = " ".join(ctype.replace("*", " * ").split())
    return t.replace("* *", "**")


def prototypes(text):
    """name -> (return type, [(arg type, arg name)]) of every exported function."""
    out = {}
    for m in PROTO.finditer(text):
        args = []
        params = m.group(3).strip()
        if params and params != "void":
            for p in params.split(","):
                pm = re.match(r"(.*?)(\w+)\s*$", p.strip())
                if not pm:
                    raise SystemExit(f"{m.group(2)}: cannot read parameter '{p.strip()}'")
                args.append((norm(pm.group(1)), pm.group(2).lower()))
        out[m.group(2)] = (norm(m.group(1)), args)
    return out


def interface(name, ret, args):
    kinds, decls = [], []
    for ctype, arg in args:
        if ctype not in ARGS:
            raise SystemExit(f"{name}: no Fortran mapping for argument type '{ctype}'")
        kind, decl = ARGS[ctype]
        kinds.append(kind)
        decls.append(decl.format(n=arg))
    dummies = ", ".join(a for _, a in args)
    if ret == "void":
        head = f"subroutine {name}({dummies}) bind(C, name='{name}')"
        tail = f"end subroutine {name}"
    else:
        if ret not in RESULTS:
            raise SystemExit(f"{name}: no Fortran mapping for return type '{ret}'")
        kind, decl, res = RESULTS[ret]
        kinds.append(kind)
        decls.append(decl)
        head = f"function {name}({dummies}) bind(C, name='{name}') result({res})"
        tail = f"end function {name}"
    lines = ["    " + head]
    if kinds:
        lines.append("      import :: " + ", ".join(dict.fromkeys(kinds)))
    lines += ["      " + d for d in decls]
    lines.append("    " + tail)
    return lines


def interfaces(protos, names):
    """The text of papi_bindc.inc: one interface block for names."""
    lines = ["! generated from papi.h and tally.h by fortran/gen_fheaders.py"
             " (fbind.py) - do not edit", "  interface"]
    for name in names:
        if name not in protos:
            raise SystemExit(f"{name}: no prototype in the headers")
        ret, args = protos[name]
        lines += interface(name, ret, args)
    lines.append("  end interface")
    return "\n".join(lines) + "\n"
