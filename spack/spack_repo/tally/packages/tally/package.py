# Copyright Tally developers. See the LICENSE file of Tally for details.
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import re

from spack_repo.builtin.build_systems.cmake import CMakePackage

from spack.package import *


class Tally(CMakePackage):
    """Tally is an MPI/OpenMP/GPU-aware HPC measurement library implementing
    the PAPI C and Fortran API (libpapi.so, papi.h, the PAPI utilities) over
    Linux perf_event and libpfm4, with a preloaded runtime (tally-run) that
    writes one HDF5 file per job and tally-report to read it."""

    # Tally has no public home yet: the release tarball is the one that
    # `cmake --build <build> --target dist` makes (tally-<version>.tar.gz);
    # a Spack mirror holding it under tally/ serves this URL's file name
    # (docs/install.md).
    homepage = "https://github.com/tally-hpc/tally"
    url = "https://github.com/tally-hpc/tally/releases/download/v0.1.1/tally-0.1.1.tar.gz"
    git = "https://github.com/tally-hpc/tally.git"

    maintainers("tally-hpc")

    license("BSD-3-Clause", checked_by="tally-hpc")

    version("main", branch="main")
    # tally-<v>.tar.gz: `cmake --build <build> --target dist` at tag v<v>
    # (0.1.1: commit a1d07cd; 0.1.0: commit 749b503)
    version("0.1.1", sha256="b610bb96b34b1ae16725c45213a1c0a147a4a957570008e951a335fa45f1f1bc")
    version("0.1.0", sha256="65646291fdf2f0d0dff853b4e3b1829d945c0ae082c344db46bb4f7c28f8aeb7")

    variant("mpi", default=True, description="Measurement runtime: tally-run, PMPI wrappers")
    variant("hdf5", default=True, description="HDF5 writer of the runtime (one file per job)")
    variant("openmp", default=True, description="OpenMP threads and regions (OMPT tool)")
    variant("fortran", default=True, description="Fortran headers and the papi module")
    variant(
        "cuda",
        default=False,
        description="CUDA/CUPTI component (libcuda and libcupti are loaded at run time)",
    )
    variant("analysis", default=True, description="tally-report and its Python dependencies")

    requires("platform=linux", msg="Tally counts through Linux perf_event")

    # The runtime is one piece: MPI wrappers, the OMPT tool and the HDF5
    # writer are built together (wrappers/CMakeLists.txt) or not at all.
    conflicts("+hdf5", when="~mpi", msg="+hdf5 is the runtime's writer: it needs +mpi")
    conflicts("+openmp", when="~mpi", msg="+openmp is part of the runtime: it needs +mpi")
    conflicts("~hdf5", when="+mpi", msg="the runtime (+mpi) writes HDF5 files: it needs +hdf5")

    depends_on("c", type="build")
    depends_on("fortran", type="build", when="+fortran")

    depends_on("cmake@3.20:", type="build")
    # The build generates the preset tables and wrappers with Python.
    depends_on("python@3.8:", type="build")

    depends_on("libpfm4")
    with when("+mpi"):
        depends_on("mpi")
        depends_on("hdf5+mpi")
        # Source names (function, file:line) of OpenMP regions and MPI call sites.
        depends_on("elfutils")
    # An OpenMP runtime that implements OMPT (omp-tools.h, libomp); GCC
    # OpenMP programs are measured inside libgomp, and run on libomp only
    # when asked (tally-run --libomp=auto).
    depends_on("llvm-openmp", when="+openmp")
    depends_on("cuda", when="+cuda")

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
            self.define_from_variant("TALLY_ENABLE_OPENMP", "openmp"),
            self.define_from_variant("TALLY_ENABLE_HDF5", "hdf5"),
            self.define_from_variant("TALLY_ENABLE_FORTRAN", "fortran"),
            self.define_from_variant("TALLY_ENABLE_CUDA", "cuda"),
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
        if spec.satisfies("+analysis"):
            # tally-report runs the Python that has h5py, pandas, matplotlib.
            args.append(self.define("TALLY_REPORT_PYTHON", spec["python"].command.path))
        return args

    def check(self):
        """The test suite (spack install --test=root) without the benchmarks:
        the tests labelled bench measure overheads (up to an hour with the
        application runs of bench_apps) rather than check the build."""
        with working_dir(self.build_directory):
            ctest("--output-on-failure", "--label-exclude", "bench")

    # ---- stand-alone tests: spack test run tally ----------------------------

    def _compiler(self, lang, attr, env_var):
        """The compiler Tally was built with (a compiler node in Spack 1.x)."""
        if lang in self.spec:
            return getattr(self.spec[lang].package, attr)
        return os.environ[env_var]

    def _examples(self):
        return join_path(self.prefix.share.tally, "examples")

    def _check_count(self, out, what):
        counted = re.search(r"^perf::TASK-CLOCK [1-9][0-9]*$", out, re.M)
        assert counted, f"{what} counted no perf::TASK-CLOCK time:\n{out}"

    def test_papi_avail(self):
        """papi_avail runs from the prefix and reports the PAPI version"""
        papi_avail = which(self.prefix.bin.papi_avail)
        out = papi_avail(output=str.split, error=str.split)
        assert re.search(r"^PAPI version\s*:\s*7\.", out, re.M), out

    def test_papi_component_avail(self):
        """papi_component_avail lists the perf_event component"""
        exe = which(self.prefix.bin.papi_component_avail)
        out = exe(output=str.split, error=str.split)
        assert "perf_event" in out, out

    def test_count_c(self):
        """a C program linked with -lpapi counts perf::TASK-CLOCK"""
        src = join_path(self._examples(), "c", "count_task_clock.c")
        cc = which(self._compiler("c", "cc", "CC"))
        inc, lib = self.prefix.include, self.prefix.lib
        cc("-std=c11", f"-I{inc}", "-o", "count_c", src, f"-L{lib}", "-lpapi", f"-Wl,-rpath,{lib}")
        out = Executable("./count_c")(output=str.split, error=str.split)
        self._check_count(out, "count_c")

    def test_count_fortran(self):
        """a Fortran program using fpapi.h and PAPIF_* counts perf::TASK-CLOCK"""
        if not self.spec.satisfies("+fortran"):
            raise SkipTest("built without +fortran")
        src = join_path(self._examples(), "fortran", "count_task_clock.F90")
        fc = which(self._compiler("fortran", "fortran", "FC"))
        inc, lib = self.prefix.include, self.prefix.lib
        fc(f"-I{inc}", "-o", "count_f", src, f"-L{lib}", "-lpapi", f"-Wl,-rpath,{lib}")
        out = Executable("./count_f")(output=str.split, error=str.split)
        self._check_count(out, "count_f")

    def test_cmake_package(self):
        """a CMake project using find_package(Tally) and Tally::papi counts"""
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

    def test_runtime_mpi_report(self):
        """a 2-rank MPI + OpenMP run under tally-run, read by tally-report"""
        if not self.spec.satisfies("+mpi+analysis"):
            raise SkipTest("the runtime test needs +mpi and +analysis")
        mpi = self.spec["mpi"]
        src = join_path(self._examples(), "mpi", "mpi_omp_sum.c")
        which(mpi.mpicc)("-fopenmp", "-o", "mpi_omp_sum", src)
        env["OMP_NUM_THREADS"] = "2"
        env["TALLY_OUTPUT_NAME"] = "run.h5"
        if os.geteuid() == 0:
            env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
            env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
        mpirun = which(join_path(mpi.prefix.bin, "mpirun"), required=True)
        launch = ["--oversubscribe"] if mpi.name == "openmpi" else []
        launch += ["-np", "2", self.prefix.bin.join("tally-run"), "--", "./mpi_omp_sum"]
        out = mpirun(*launch, output=str.split, error=str.split)
        assert "ranks 2 threads 2" in out, out
        assert os.path.isfile("run.h5"), f"tally-run wrote no run.h5:\n{out}"
        report = Executable(self.prefix.bin.join("tally-report"))
        text = report("run.h5", output=str.split, error=str.split)
        assert re.search(r"^\s*ranks\s+2\s*$", text, re.M), text
        assert "MPI_Allreduce" in text, text
        if self.spec.satisfies("+openmp"):
            assert re.search(r"^\s*threads\s+4\s*$", text, re.M), text
            assert "omp parallel" in text, text
