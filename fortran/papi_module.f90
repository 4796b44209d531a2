! papi_module.f90 - the Fortran module `papi` (use papi).
!
! Gives modern Fortran code, with nothing to link but libtally (-lpapi):
!  - named kinds for the C types of the API (PAPI_LONG_LONG, ...);
!  - every constant of papi.h and the presets (f90papi.h, generated);
!  - explicit interfaces of all PAPIF_* / TALLYF_* routines (generated from
!    papif_spec.txt), so calls are checked at compile time;
!  - bind(C) interfaces to the C API itself, taking C strings
!    (trim(name)//c_null_char), including Tally's region API.
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

  ! ---- The C API, bind(C) ---------------------------------------------------
  ! Strings are C strings: pass trim(name)//c_null_char; output buffers are
  ! character(kind=c_char) arrays of at least PAPI_MAX_STR_LEN.
  interface
    function PAPI_library_init(version) bind(C, name='PAPI_library_init') result(rc)
      import :: c_int
      integer(c_int), value :: version
      integer(c_int) :: rc
    end function PAPI_library_init
    function PAPI_is_initialized() bind(C, name='PAPI_is_initialized') result(rc)
      import :: c_int
      integer(c_int) :: rc
    end function PAPI_is_initialized
    subroutine PAPI_shutdown() bind(C, name='PAPI_shutdown')
    end subroutine PAPI_shutdown
    function PAPI_create_eventset(eventset) bind(C, name='PAPI_create_eventset') result(rc)
      import :: c_int
      integer(c_int) :: eventset
      integer(c_int) :: rc
    end function PAPI_create_eventset
    function PAPI_destroy_eventset(eventset) bind(C, name='PAPI_destroy_eventset') result(rc)
      import :: c_int
      integer(c_int) :: eventset
      integer(c_int) :: rc
    end function PAPI_destroy_eventset
    function PAPI_cleanup_eventset(eventset) bind(C, name='PAPI_cleanup_eventset') result(rc)
      import :: c_int
      integer(c_int), value :: eventset
      integer(c_int) :: rc
    end function PAPI_cleanup_eventset
    function PAPI_add_event(eventset, code) bind(C, name='PAPI_add_event') result(rc)
      import :: c_int
      integer(c_int), value :: eventset, code
      integer(c_int) :: rc
    end function PAPI_add_event
    function PAPI_add_named_event(eventset, name) bind(C, name='PAPI_add_named_event') result(rc)
      import :: c_int, c_char
      integer(c_int), value :: eventset
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: rc
    end function PAPI_add_named_event
    function PAPI_remove_event(eventset, code) bind(C, name='PAPI_remove_event') result(rc)
      import :: c_int
      integer(c_int), value :: eventset, code
      integer(c_int) :: rc
    end function PAPI_remove_event
    function PAPI_event_name_to_code(name, code) bind(C, name='PAPI_event_name_to_code') result(rc)
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: code
      integer(c_int) :: rc
    end function PAPI_event_name_to_code
    function PAPI_event_code_to_name(code, name) bind(C, name='PAPI_event_code_to_name') result(rc)
      import :: c_int, c_char
      integer(c_int), value :: code
      character(kind=c_char) :: name(*)
      integer(c_int) :: rc
    end function PAPI_event_code_to_name
    function PAPI_query_event(code) bind(C, name='PAPI_query_event') result(rc)
      import :: c_int
      integer(c_int), value :: code
      integer(c_int) :: rc
    end function PAPI_query_event
    function PAPI_query_named_event(name) bind(C, name='PAPI_query_named_event') result(rc)
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: rc
    end function PAPI_query_named_event
    function PAPI_num_events(eventset) bind(C, name='PAPI_num_events') result(rc)
      import :: c_int
      integer(c_int), value :: eventset
      integer(c_int) :: rc
    end function PAPI_num_events
    function PAPI_state(eventset, status) bind(C, name='PAPI_state') result(rc)
      import :: c_int
      integer(c_int), value :: eventset
      integer(c_int) :: status
      integer(c_int) :: rc
    end function PAPI_state
    function PAPI_start(eventset) bind(C, name='PAPI_start') result(rc)
      import :: c_int
      integer(c_int), value :: eventset
      integer(c_int) :: rc
    end function PAPI_start
    function PAPI_stop(eventset, values) bind(C, name='PAPI_stop') result(rc)
      import :: c_int, c_long_long
      integer(c_int), value :: eventset
      integer(c_long_long) :: values(*)
      integer(c_int) :: rc
    end function PAPI_stop
    function PAPI_read(eventset, values) bind(C, name='PAPI_read') result(rc)
      import :: c_int, c_long_long
      integer(c_int), value :: eventset
      integer(c_long_long) :: values(*)
      integer(c_int) :: rc
    end function PAPI_read
    function PAPI_accum(eventset, values) bind(C, name='PAPI_accum') result(rc)
      import :: c_int, c_long_long
      integer(c_int), value :: eventset
      integer(c_long_long) :: values(*)
      integer(c_int) :: rc
    end function PAPI_accum
    function PAPI_write(eventset, values) bind(C, name='PAPI_write') result(rc)
      import :: c_int, c_long_long
      integer(c_int), value :: eventset
      integer(c_long_long) :: values(*)
      integer(c_int) :: rc
    end function PAPI_write
    function PAPI_reset(eventset) bind(C, name='PAPI_reset') result(rc)
      import :: c_int
      integer(c_int), value :: eventset
      integer(c_int) :: rc
    end function PAPI_reset
    function PAPI_register_thread() bind(C, name='PAPI_register_thread') result(rc)
      import :: c_int
      integer(c_int) :: rc
    end function PAPI_register_thread
    function PAPI_unregister_thread() bind(C, name='PAPI_unregister_thread') result(rc)
      import :: c_int
      integer(c_int) :: rc
    end function PAPI_unregister_thread
    function PAPI_thread_id() bind(C, name='PAPI_thread_id') result(id)
      import :: c_long
      integer(c_long) :: id
    end function PAPI_thread_id
    function PAPI_get_real_cyc() bind(C, name='PAPI_get_real_cyc') result(t)
      import :: c_long_long
      integer(c_long_long) :: t
    end function PAPI_get_real_cyc
    function PAPI_get_real_usec() bind(C, name='PAPI_get_real_usec') result(t)
      import :: c_long_long
      integer(c_long_long) :: t
    end function PAPI_get_real_usec
    function PAPI_get_real_nsec() bind(C, name='PAPI_get_real_nsec') result(t)
      import :: c_long_long
      integer(c_long_long) :: t
    end function PAPI_get_real_nsec
    function PAPI_get_virt_cyc() bind(C, name='PAPI_get_virt_cyc') result(t)
      import :: c_long_long
      integer(c_long_long) :: t
    end function PAPI_get_virt_cyc
    function PAPI_get_virt_usec() bind(C, name='PAPI_get_virt_usec') result(t)
      import :: c_long_long
      integer(c_long_long) :: t
    end function PAPI_get_virt_usec
    function PAPI_get_virt_nsec() bind(C, name='PAPI_get_virt_nsec') result(t)
      import :: c_long_long
      integer(c_long_long) :: t
    end function PAPI_get_virt_nsec
    function PAPI_strerror(code) bind(C, name='PAPI_strerror') result(p)
      import :: c_int, c_ptr
      integer(c_int), value :: code
      type(c_ptr) :: p
    end function PAPI_strerror
    function PAPI_hl_region_begin(name) bind(C, name='PAPI_hl_region_begin') result(rc)
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: rc
    end function PAPI_hl_region_begin
    function PAPI_hl_read(name) bind(C, name='PAPI_hl_read') result(rc)
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: rc
    end function PAPI_hl_read
    function PAPI_hl_region_end(name) bind(C, name='PAPI_hl_region_end') result(rc)
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: rc
    end function PAPI_hl_region_end
    function PAPI_hl_stop() bind(C, name='PAPI_hl_stop') result(rc)
      import :: c_int
      integer(c_int) :: rc
    end function PAPI_hl_stop
    ! Tally's regions (tally.h); thread-safe, callable from OpenMP threads.
    function tally_region_begin(name) bind(C, name='tally_region_begin') result(rc)
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: rc
    end function tally_region_begin
    function tally_region_end(name) bind(C, name='tally_region_end') result(rc)
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: rc
    end function tally_region_end
  end interface
end module papi
