# TallyReportPython.cmake - the Python that Tally's installed scripts run
# (tally-report, and tally-run's --summary and pass merge): one that imports
# h5py, numpy, pandas and matplotlib.  TALLY_REPORT_PYTHON when given (Spack
# passes its python); else the first of the Python CMake found and python3 on
# PATH that imports h5py; else the one CMake found.  Never a fixed path.
if(NOT DEFINED TALLY_REPORT_PYTHON)
  set(_tly_py ${Python3_EXECUTABLE})
  find_program(_tly_path_py python3 NO_CACHE)
  foreach(_p ${Python3_EXECUTABLE} ${_tly_path_py})
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
