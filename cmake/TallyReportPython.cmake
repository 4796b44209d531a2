# TallyReportPython.cmake - the Python that Tally's installed scripts run
# (tally-report, and tally-run's --summary and pass merge): one that imports
# h5py, numpy, pandas and matplotlib.  TALLY_REPORT_PYTHON when given (Spack
# passes its python); else the first of the Python CMake found and each
# python3 on PATH, in PATH order, that imports h5py; else the one CMake
# found.  Never a fixed path.
if(NOT DEFINED TALLY_REPORT_PYTHON)
  set(_tly_py ${Python3_EXECUTABLE})
  set(_tly_cands ${Python3_EXECUTABLE})
  string(REPLACE ":" ";" _tly_path "$ENV{PATH}")
  foreach(_d IN LISTS _tly_path)
    if(_d AND EXISTS ${_d}/python3)
      list(APPEND _tly_cands ${_d}/python3)
    endif()
  endforeach()
  foreach(_p IN LISTS _tly_cands)
    if(EXISTS ${_p})
      execute_process(COMMAND ${_p} -c "import h5py" RESULT_VARIABLE _rc
                      OUTPUT_QUIET ERROR_QUIET)
      if(_rc EQUAL 0)
        set(_tly_py ${_p})
        break()
      endif()
    endif()
  endforeach()
endif()
set(TALLY_REPORT_PYTHON ${_tly_py} CACHE FILEPATH
    "Python with h5py, numpy, pandas, matplotlib that tally-report and tally-run's scripts run")
message(STATUS "Tally: scripts run ${TALLY_REPORT_PYTHON}")
# Directories put before the interpreter's own path in tally-report (the
# site-packages of a Spack python's py-* run dependencies), ":"-separated.
set(TALLY_REPORT_PYTHONPATH "" CACHE STRING
    "Module directories (:-separated) tally-report adds to sys.path (h5py, pandas, ... outside the interpreter)")
