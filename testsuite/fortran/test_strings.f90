! test_strings.f90 - Fortran CHARACTER arguments: output names longer than
! the caller's variable are truncated, never written past its length (the
! variables are heap blocks of exactly that length, so ASan sees any
! overrun), the rest is blank-padded exactly, and inputs are trimmed of
! trailing blanks (and end at a NUL).
program strings
  use papi
  use tfharness
  implicit none
  character(len=:), allocatable :: short, exact, wide
  character(len=40) :: guard
  character(len=*), parameter :: tcn = 'perf::TASK-CLOCK'
  integer(PAPI_INT) :: check, tc, code, i

  check = PAPI_VER_CURRENT
  call PAPIF_library_init(check)
  call PAPIF_event_name_to_code(tcn, tc, check)
  call th_eq(check, PAPI_OK, 'name_to_code')

  ! truncated: 8 of the 16 characters, in an 8-byte heap block
  allocate (character(len=8) :: short)
  short = 'XXXXXXXX'
  call PAPIF_event_code_to_name(tc, short, check)
  call th_eq(check, PAPI_OK, 'code_to_name into 8 characters')
  call th_true(short == tcn(1:8), 'truncated to the caller''s length')

  ! a substring of a larger variable: nothing after it changes
  guard = repeat('#', 40)
  call PAPIF_event_code_to_name(tc, guard(5:12), check)
  call th_true(guard(5:12) == tcn(1:8), 'substring holds the first 8')
  call th_true(guard(1:4) == '####' .and. guard(13:40) == repeat('#', 28), 'nothing outside the substring')

  ! exact fit: no padding, no terminator written
  allocate (character(len=len(tcn)) :: exact)
  call PAPIF_event_code_to_name(tc, exact, check)
  call th_true(exact == tcn, 'exact length')

  ! wider: blank-padded to the end, exactly
  allocate (character(len=300) :: wide)
  wide = repeat('Z', 300)
  call PAPIF_event_code_to_name(tc, wide, check)
  call th_true(wide(1:len(tcn)) == tcn, 'name at the start')
  call th_eq(verify(wide(len(tcn) + 1:), ' '), 0, 'blank padding to the full length')
  call th_eq(len_trim(wide), len(tcn), 'len_trim = name length')

  ! a zero-length output is legal and untouched
  call PAPIF_event_code_to_name(tc, guard(1:0), check)
  call th_eq(check, PAPI_OK, 'zero-length output')
  call th_true(guard(1:4) == '####', 'zero-length output writes nothing')

  ! inputs: trailing blanks and a C terminator are not part of the name
  call PAPIF_event_name_to_code(tcn // '          ', code, check)
  call th_eq(check, PAPI_OK, 'padded input'); call th_eq(code, tc, 'padded input code')
  call PAPIF_event_name_to_code(tcn // char(0) // 'junk', code, check)
  call th_eq(check, PAPI_OK, 'NUL-terminated input'); call th_eq(code, tc, 'NUL-terminated code')
  call PAPIF_event_name_to_code('   ', code, check)
  call th_eq(check, PAPI_ENOEVNT, 'blank name is the empty name')
  call PAPIF_event_name_to_code(' ' // tcn, code, check)
  call th_eq(check, PAPI_ENOEVNT, 'leading blanks are kept')
  ! longer than any C buffer: refused, not truncated into another name
  call PAPIF_event_name_to_code(tcn // repeat('x', 2000), code, check)
  call th_eq(check, PAPI_EINVAL, 'over-long input')

  ! info strings of several lengths in one call
  call info_lengths()
  do i = 1, 2
    deallocate (short)
    allocate (character(len=i) :: short)
    call PAPIF_event_code_to_name(tc, short, check)
    call th_true(short == tcn(1:i), 'one- and two-character outputs')
  end do
  deallocate (short, exact, wide)
  call PAPIF_shutdown()
  call th_done()

contains

  subroutine info_lengths()
    character(len=:), allocatable :: sym, ld, sd, note
    integer(PAPI_INT) :: cnt, flags, rc
    allocate (character(len=5) :: sym)
    allocate (character(len=3) :: ld)
    allocate (character(len=200) :: sd)
    allocate (character(len=1) :: note)
    call PAPIF_get_event_info(PAPI_L1_DCM, sym, ld, sd, cnt, note, flags, rc)
    call th_eq(rc, PAPI_OK, 'get_event_info')
    call th_true(sym == 'PAPI_' .and. ld == 'Lev', 'info strings truncated')
    call th_true(sd(1:16) == 'L1D cache misses' .and. verify(sd(17:), ' ') == 0, 'info string padded')
    deallocate (sym, ld, sd, note)
  end subroutine info_lengths
end program strings
