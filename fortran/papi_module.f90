! papi_module.f90 - the Fortran module `papi` (use papi).
!
! Gives modern Fortran code, with nothing to link but libtally (-lpapi):
!  - named kinds for the C types of the API (PAPI_LONG_LONG, ...);
!  - every constant of papi.h and the presets (f90papi.h, generated);
!  - explicit interfaces of all PAPIF_* / TALLYF_* routines (generated from
!    papif_spec.txt), so calls are checked at compile time;
!  - bind(C) interfaces to the C API itself, taking C strings
!    (trim(name)//c_null_char), including Tally's region API (generated
!    from the prototypes of papi.h and tally.h, papi_bindc.inc).
! The module holds no procedures, so its object file is never needed.
module papi
  use, intrinsic :: iso_c_binding, only: c_int, c_long, c_long_long, c_float, c_double, &
       c_char, c_null_char, c_ptr
  implicit none

  ! ---- Named kinds ---------------------------------------------------------
  integer, parameter :: PAPI_INT = c_int              ! C int: event sets, codes, check
  integer, parameter :: PAPI_LONG = c_long            ! C long: thread ids
  integer, parameter :: PAPI_LONG_LONG = c_long_long  ! counter values, times
  integer, parameter :: PAPI_FLOAT = c_float          ! rates of the high-level API
  integer, parameter :: PAPI_DOUBLE = c_double

  ! ---- Constants (generated from papi.h and papiStdEventDefs.h) -----------
  include 'f90papi.h'

  ! ---- PAPIF_* and TALLYF_* routines (generated from papif_spec.txt) ------
  include 'papif_interfaces.inc'

  ! ---- The C API, bind(C) (generated from papi.h and tally.h) --------------
  ! Strings are C strings: pass trim(name)//c_null_char; output buffers are
  ! character(kind=c_char) arrays of at least PAPI_MAX_STR_LEN.
  include 'papi_bindc.inc'
end module papi
