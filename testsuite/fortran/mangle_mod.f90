! mangle_mod.f90 - `use papi` against the installed papi.mod, built with
! and without underscoring: the explicit interfaces name the same routines.
program mangle_mod
  use papi
  implicit none
  integer(PAPI_INT) :: check, code
  character(len=PAPI_MAX_STR_LEN) :: name
  check = PAPI_VER_CURRENT
  call PAPIF_library_init(check)
  if (check /= PAPI_VER_CURRENT) stop 2
  call PAPIF_event_name_to_code('perf::PAGE-FAULTS', code, check)
  if (check /= PAPI_OK) stop 3
  call PAPIF_event_code_to_name(code, name, check)
  if (name /= 'perf::PAGE-FAULTS') stop 4
  write (*, '(a,a)') 'round trip ', trim(name)
  call PAPIF_shutdown()
end program mangle_mod
