# Copyright Tally developers. See the LICENSE file of Tally for details.
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import re

from spack_repo.builtin.build_systems.cmake import CMakePackage

from spack.package import *

# The Tally checkout holding this file (spack/spack_repo/tally/packages/tally/).
_CHECKOUT = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 5))


class Tally(CMakePackage):
    """Tally is an MPI/OpenMP/GPU-aware HPC measurement library implementing
    the PAPI C and Fortran API over Linux perf_event and libpfm4, with a
    preloaded runtime (tally-run) that writes one HDF5 file per job and
    tally-report to read it. By default it installs the PAPI names
    (libpapi.so, papi.h, papi.pc, the papi_* utilities); ~papi_names leaves
    them out so that Tally and Spack's papi can share an environment view."""

    # Tally has no public site, repository or download: this package lives in
    # the Tally checkout (spack/spack_repo/tally), and fetches from that
    # checkout. `git` is it (develop and main build its branch main); `url`
    # is its dist/ folder, where `spack/release.py tarball --out dist` puts
    # the release tarball (byte for byte the same on any machine). A Spack
    # mirror holding the tarball (by its sha256) serves it as well, and
    # packages.yaml's package_attributes can point git/url elsewhere
    # (docs/install.md). No homepage and no maintainers: there is no site,
    # and spack-packages wants the GitHub names of people who answer for
    # the package, which it gets when it is submitted there.
    git = f"file://{_CHECKOUT}"
    url = f"file://{_CHECKOUT}/dist/tally-0.2.0.tar.gz"

    license("BSD-3-Clause")

    # HEAD of the default branch, the usual way (`spack install tally@develop`);
    # `main` is the same branch under its own name.
    version("develop", branch="main")
    version("main", branch="main")
    # 0.2.0: commit b480fc9edc38 (spack/release.py tarball --ref b480fc9edc38)
    version("0.2.0", sha256="a76347dbac62649c4f8effca55897fe66fb2eed3d9483d1ce7d26a376dd634b1")
    # 0.1.1: commit a1d07cd4b676 (spack/release.py tarball --ref a1d07cd4b676)
    version("0.1.1", sha256="c8a26c42601cf1f53ed7422a3a0f245ea6b6353afa98d28453f289c8c9162a99")
    # 0.1.0: commit 749b50310f1c (spack/release.py tarball --ref 749b50310f1c)
    version("0.1.0", sha256="14c1778ba0c729cac9551a979135a3ce1fb47e32fb0295f51954509c986e31ce")

    variant(
        "mpi", default=True, description="Measurement runtime (tally-run, PMPI wrappers, HDF5)"
    )
    variant("openmp", default=True, description="OpenMP threads and regions (OMPT tool)")
    variant(
        "fortran",
        default=True,
        description="Fortran headers fpapi.h, f77papi.h, f90papi.h, papi.mod",
    )
    variant(
        "analysis",
        default=True,
        description="tally-report and the Python reader (share/tally/python)",
    )
    variant(
        "papi_names",
        default=True,
        description="Install the PAPI names (libpapi.so, papi.pc, bin/papi_*, include/papi.h),"
        " the paths of Spack's papi: a view holding both conflicts; beside papi use"
        " ~papi_names (include/tally, libexec/tally, tally.pc only)",
    )
    # Not CudaPackage: its cuda_arch would only pick the architectures of the
    # test kernels and change the hash of an install for nothing (CUPTI is
    # loaded at run time; the tests build for the CMake default).
    variant(
        "cuda",
        default=False,
        description="GPU metrics and PC samples through CUPTI (cuda component, tally-gpu-avail)",
    )
    variant(
        "otf2",
        default=True,
        when="+mpi",
        description="Event traces (tally-run --trace) as OTF2 archives",
    )
    variant(
        "nvtx",
        default=True,
        when="+mpi",
        description="NVTX tool: ranges and payloads (the CUDA headers with +cuda)",
    )

    requires("platform=linux", msg="Tally counts through Linux perf_event")

    # The OMPT tool is part of the runtime (wrappers/CMakeLists.txt).
    conflicts("+openmp", when="~mpi", msg="+openmp is part of the runtime: it needs +mpi")
    # Releases before 0.2.0 install the PAPI names, the Fortran headers and
    # tally-report whatever the options, and load only libcupti.so.13.
    conflicts("~papi_names", when="@:0.1", msg="~papi_names needs tally@0.2.0: or main")
    conflicts("~fortran", when="@:0.1", msg="~fortran installs no Fortran headers from 0.2.0 on")
    conflicts("~analysis", when="@:0.1", msg="~analysis installs no tally-report from 0.2.0 on")

    depends_on("c", type="build")
    depends_on("fortran", type="build", when="+fortran")

    depends_on("cmake@3.20:", type="build")
    # The build generates the preset tables and wrappers with Python.
    depends_on("python@3.8:", type="build")

    depends_on("libpfm4@4.11:")
    with when("+mpi"):
        depends_on("mpi")
        # The writer uses the HDF5 1.10 API; tested with 1.10.8 (Debian 12).
        depends_on("hdf5@1.10:1.14+mpi")
        # Source names (function, file:line) of OpenMP regions and MPI call sites.
        depends_on("elfutils")
    depends_on("otf2@2.3:", when="+otf2")
    # NVTX is header-only: the CUDA toolkit's headers with +cuda, else nvtx's.
    depends_on("nvtx@3.1:", when="+nvtx~cuda")
    # An OpenMP runtime that implements OMPT (omp-tools.h, libomp); GCC
    # OpenMP programs are measured inside libgomp, and run on libomp only
    # when asked (tally-run --libomp=auto).
    depends_on("llvm-openmp@14:", when="+openmp")

    with when("+cuda"):
        # The component uses CUPTI of CUDA 13 (cuptiSubscribe_v2, the Profiler
        # Host and Range Profiler APIs); it loads libcupti.so.<major> of the
        # CUDA it was built with (src/CMakeLists.txt).
        depends_on("cuda@13.0:13")
        # nvcc compiles the GPU test kernels with the host C++ compiler.
        depends_on("cxx", type="build")

    with when("+analysis"):
        depends_on("python@3.8:", type=("build", "run"))
        depends_on("py-h5py", type="run")
        depends_on("py-numpy", type="run")
        depends_on("py-pandas", type="run")
        depends_on("py-matplotlib", type="run")

    # The stand-alone tests build programs against the installed package.
    test_requires_compiler = True

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define_from_variant("TALLY_ENABLE_MPI", "mpi"),
            self.define_from_variant("TALLY_ENABLE_HDF5", "mpi"),
            self.define_from_variant("TALLY_ENABLE_OPENMP", "openmp"),
            self.define_from_variant("TALLY_ENABLE_FORTRAN", "fortran"),
            self.define_from_variant("TALLY_ENABLE_ANALYSIS", "analysis"),
            self.define_from_variant("TALLY_INSTALL_PAPI_NAMES", "papi_names"),
            self.define_from_variant("TALLY_ENABLE_CUDA", "cuda"),
            # conditional variants: off (and not searched) when absent
            self.define("TALLY_ENABLE_OTF2", spec.satisfies("+otf2")),
            self.define("TALLY_ENABLE_NVTX", spec.satisfies("+nvtx")),
            self.define("TALLY_BUILD_TESTS", self.run_tests),
            self.define("TALLY_WERROR", False),
        ]
        if spec.satisfies("+mpi"):
            args.append(self.define("MPI_C_COMPILER", spec["mpi"].mpicc))
            args.append(self.define("HDF5_ROOT", spec["hdf5"].prefix))
        if spec.satisfies("+openmp"):
            # omp-tools.h and libomp (cmake/TallyFindLibomp.cmake).
            args.append(self.define("LLVM_OPENMP_ROOT", spec["llvm-openmp"].prefix))
        if spec.satisfies("+cuda"):
            args.append(self.define("CUDAToolkit_ROOT", spec["cuda"].prefix))
        if spec.satisfies("+nvtx"):
            # the headers of the spec's nvtx (or cuda), never a search that
            # could find the machine's /usr/local/cuda first
            nvtx = spec["cuda"] if spec.satisfies("+cuda") else spec["nvtx"]
            args.append(self.define("TALLY_NVTX3_INCLUDE", nvtx.prefix.include))
        if spec.satisfies("+analysis"):
            # tally-report's #! is this Python, and it finds h5py, pandas, ...
            # in their own prefixes.
            args.append(self.define("TALLY_REPORT_PYTHON", spec["python"].command.path))
            args.append(self.define("TALLY_REPORT_PYTHONPATH", ":".join(self._py_run_paths())))
        return args

    def _py_run_paths(self):
        """site-packages of the py-* packages tally-report imports, and theirs."""
        python = self.spec["python"].package
        paths = []
        for dep in self.spec.traverse(root=False, deptype=("link", "run")):
            if not dep.name.startswith("py-") or dep.external:
                continue
            for sub in (python.platlib, python.purelib):
                path = join_path(dep.prefix, sub)
                if path not in paths:
                    paths.append(path)
        return paths

    def setup_run_environment(self, env):
        if self.spec.satisfies("+cuda"):
            # The CUPTI of the cuda Tally was built with (the library also
            # searches that directory itself).
            cuda = self.spec["cuda"].prefix
            major = self.spec["cuda"].version.up_to(1)
            for d in (join_path(cuda, "extras", "CUPTI", "lib64"), cuda.lib64, cuda.lib):
                lib = join_path(d, f"libcupti.so.{major}")
                if os.path.exists(lib):
                    env.set("TALLY_CUPTI_LIB", lib)
                    break

    # The PAPI names of +papi_names, the paths of Spack's papi.
    _papi_names = (
        join_path("include", "papi.h"),
        join_path("lib", "libpapi.so"),
        join_path("lib", "pkgconfig", "papi.pc"),
        join_path("bin", "papi_avail"),
    )

    def add_files_to_view(self, view, merge_map, skip_if_exists=True):
        """An environment view keeps one file of each path without a word:
        say so when another package's papi.h, libpapi.so, ... take the place
        of Tally's (Spack's papi beside the default +papi_names)."""
        if self.spec.satisfies("+papi_names"):
            taken = [
                rel
                for rel in self._papi_names
                if os.path.lexists(join_path(self.prefix, rel))
                and join_path(self.prefix, rel) not in merge_map
            ]
            if taken:
                tty.warn(
                    f"{self.spec.format('{name}{@version}{/hash:7}')} +papi_names in the view "
                    f"{view.get_projection_for_spec(self.spec)}: {', '.join(taken)} are another "
                    "package's (papi's) there, not Tally's; beside papi install tally~papi_names"
                )
        super().add_files_to_view(view, merge_map, skip_if_exists)

    # check() leaves out what does not test the build on this machine: the
    # labels bench (overheads, up to an hour), apps (HPCC, LAMMPS, CP2K of
    # the system, outside Spack's graph), layout, settings and release (the
    # source tree's own rules: folder layout, generated files current,
    # release commits), and the developer tests that configure and build
    # Tally again in other configurations or repeat a race 100 times (the
    # CI's release and loaded stages run them).
    _check_labels_out = ("bench", "apps", "layout", "settings", "release")
    _check_tests_out = (
        "test_install_options",
        "test_no_host_deps",
        "safety_signals",
        "safety_swap_race",
        "safety_swap_race_report",
    )

    def check(self):
        """The test suite (spack install --test=root) without the labels and
        tests above."""
        labels = "^({0})$".format("|".join(self._check_labels_out))
        tests = "^({0})$".format("|".join(self._check_tests_out))
        with working_dir(self.build_directory):
            ctest("--output-on-failure", "--label-exclude", labels, "--exclude-regex", tests)

    # ---- stand-alone tests: spack test run tally ----------------------------
    # Each test that needs something the machine may lack (perf_event access,
    # mpirun, a GPU) skips with the reason instead of failing.

    def _compiler(self, lang, attr, env_var):
        """The compiler Tally was built with (a compiler node in Spack 1.x)."""
        if lang in self.spec:
            return getattr(self.spec[lang].package, attr)
        return os.environ[env_var]

    def _examples(self):
        return join_path(self.prefix.share.tally, "examples")

    def _util(self, name):
        """A PAPI utility: bin/ with +papi_names, else libexec/tally/."""
        if self.spec.satisfies("+papi_names"):
            return self.prefix.bin.join(name)
        return join_path(self.prefix.libexec.tally, name)

    def _include(self):
        return (
            self.prefix.include
            if self.spec.satisfies("+papi_names")
            else self.prefix.include.tally
        )

    def _lib_flag(self):
        return "-lpapi" if self.spec.satisfies("+papi_names") else "-ltally"

    def _need_perf_event(self):
        """Tally counts through perf_event_open, which perf_event_paranoid
        above 2 refuses to unprivileged users (Debian's default is 3)."""
        try:
            with open("/proc/sys/kernel/perf_event_paranoid") as f:
                level = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            raise SkipTest("no /proc/sys/kernel/perf_event_paranoid: not Linux perf_event")
        if level > 2 and os.geteuid() != 0:
            raise SkipTest(f"perf_event_paranoid is {level} (above 2): perf_event_open is refused")

    def _check_count(self, out, what):
        counted = re.search(r"^perf::TASK-CLOCK [1-9][0-9]*$", out, re.M)
        assert counted, f"{what} counted no perf::TASK-CLOCK time:\n{out}"

    def test_papi_avail(self):
        """papi_avail runs from the prefix and reports the PAPI version"""
        self._need_perf_event()
        papi_avail = which(self._util("papi_avail"), required=True)
        out = papi_avail(output=str.split, error=str.split)
        assert re.search(r"^PAPI version\s*:\s*7\.", out, re.M), out

    def test_papi_component_avail(self):
        """papi_component_avail lists the perf_event component"""
        self._need_perf_event()
        exe = which(self._util("papi_component_avail"), required=True)
        out = exe(output=str.split, error=str.split)
        assert "perf_event" in out, out

    def test_count_c(self):
        """a C program linked with -lpapi (-ltally with ~papi_names) counts perf::TASK-CLOCK"""
        self._need_perf_event()
        src = join_path(self._examples(), "c", "count_task_clock.c")
        cc = which(self._compiler("c", "cc", "CC"))
        inc, lib = self._include(), self.prefix.lib
        cc(
            "-std=c11",
            f"-I{inc}",
            "-o",
            "count_c",
            src,
            f"-L{lib}",
            self._lib_flag(),
            f"-Wl,-rpath,{lib}",
        )
        out = Executable("./count_c")(output=str.split, error=str.split)
        self._check_count(out, "count_c")

    def test_count_fortran(self):
        """a Fortran program using fpapi.h and PAPIF_* counts perf::TASK-CLOCK"""
        if not self.spec.satisfies("+fortran"):
            raise SkipTest("built without +fortran: no Fortran headers installed")
        self._need_perf_event()
        src = join_path(self._examples(), "fortran", "count_task_clock.F90")
        fc = which(self._compiler("fortran", "fortran", "FC"))
        inc, lib = self._include(), self.prefix.lib
        fc(f"-I{inc}", "-o", "count_f", src, f"-L{lib}", self._lib_flag(), f"-Wl,-rpath,{lib}")
        out = Executable("./count_f")(output=str.split, error=str.split)
        self._check_count(out, "count_f")

    def test_cmake_package(self):
        """a CMake project using find_package(Tally) and Tally::papi counts"""
        self._need_perf_event()
        cmake = self.spec["cmake"].command
        cmake(
            "-S",
            join_path(self._examples(), "cmake"),
            "-B",
            "cmake-build",
            f"-DCMAKE_PREFIX_PATH={self.prefix}",
            f"-DCMAKE_C_COMPILER={self._compiler('c', 'cc', 'CC')}",
            "-DWITH_FORTRAN=OFF",
        )
        cmake("--build", "cmake-build")
        exe = Executable(join_path("cmake-build", "count_task_clock"))
        self._check_count(exe(output=str.split, error=str.split), "find_package(Tally)")

    def test_report_python(self):
        """tally-report runs with the package's Python and imports h5py, pandas"""
        if not self.spec.satisfies("+analysis"):
            assert not os.path.exists(self.prefix.bin.join("tally-report")), (
                "~analysis: tally-report"
            )
            raise SkipTest("built without +analysis: no tally-report installed")
        report = self.prefix.bin.join("tally-report")
        with open(report) as f:
            shebang = f.readline().strip()
        python = self.spec["python"].command.path
        # "#!<python> -I": the package's Python, isolated from PYTHON* and
        # the user's site directory
        words = shebang[2:].split() if shebang.startswith("#!") else []
        assert words and words[0] == str(python) and set(words[1:]) <= {"-I"}, (
            f"tally-report runs {shebang}, not {python}"
        )
        out = Executable(report)("--help", output=str.split, error=str.split)
        assert "usage" in out.lower(), out

    def test_gpu_avail(self):
        """tally-gpu-avail lists the GPU metrics through the CUPTI of the build's cuda"""
        if not self.spec.satisfies("+cuda"):
            raise SkipTest("built without +cuda")
        if not os.path.exists("/dev/nvidiactl"):
            raise SkipTest("no NVIDIA GPU on this machine (/dev/nvidiactl)")
        exe = which(self.prefix.bin.join("tally-gpu-avail"), required=True)
        out = exe(output=str.split, error=str.split)
        assert "cuda:::" in out, out

    def test_runtime_mpi_report(self):
        """a 2-rank MPI + OpenMP run under tally-run, read by tally-report"""
        if not self.spec.satisfies("+mpi+analysis"):
            raise SkipTest("the runtime test needs +mpi and +analysis")
        mpi = self.spec["mpi"]
        mpirun_path = join_path(mpi.prefix.bin, "mpirun")
        if not os.path.exists(mpirun_path):
            raise SkipTest(f"{mpi.name} has no {mpirun_path}")
        self._need_perf_event()
        src = join_path(self._examples(), "mpi", "mpi_omp_sum.c")
        which(mpi.mpicc)("-fopenmp", "-o", "mpi_omp_sum", src)
        env["OMP_NUM_THREADS"] = "2"
        env["TALLY_OUTPUT_NAME"] = "run.h5"
        if os.geteuid() == 0:
            env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
            env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
        mpirun = which(mpirun_path, required=True)
        launch = ["--oversubscribe"] if mpi.name == "openmpi" else []
        launch += ["-np", "2", self.prefix.bin.join("tally-run"), "--", "./mpi_omp_sum"]
        out = mpirun(*launch, output=str.split, error=str.split)
        assert "ranks 2 threads 2" in out, out
        assert os.path.isfile("run.h5"), f"tally-run wrote no run.h5:\n{out}"
        # the preload library loads the HDF5 writer installed beside it (a
        # library of its own since 0.3.0; 0.2.0 links HDF5 into the preload)
        if self.spec.satisfies("@0.3:"):
            libdirs = (self.prefix.lib, self.prefix.lib64)
            assert any(os.path.isfile(join_path(d, "libtally-h5.so")) for d in libdirs), (
                "libtally-h5.so is not installed beside libtally-preload.so"
            )
        report = Executable(self.prefix.bin.join("tally-report"))
        text = report("run.h5", output=str.split, error=str.split)
        assert re.search(r"^\s*ranks\s+2\s*$", text, re.M), text
        assert "MPI_Allreduce" in text, text
        if self.spec.satisfies("+openmp"):
            assert re.search(r"^\s*threads\s+4\s*$", text, re.M), text
            assert "omp parallel" in text, text
