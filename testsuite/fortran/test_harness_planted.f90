! test_harness_planted.f90 - each check of the Fortran harness (tharness.f90)
! fails on planted wrong values (0, half, double the truth) and passes on
! the truth.  A planted failure is counted, undone and recorded as a
! passing check of this test; its FAILED line on stderr is expected.
program harness_planted
  use tfharness
  use, intrinsic :: iso_c_binding, only: c_long_long
  implicit none
  integer(c_long_long) :: t0, cpu
  integer(c_long_long), parameter :: truth = 1000000_8

  ! th_near_clock over a real window of 60 ms of this thread's CPU time
  call tft_clock_begin()
  t0 = tft_thread_cpu_ns()
  call burn(60000000_8)
  cpu = tft_thread_cpu_ns() - t0
  call near_clock(0_8, cpu, 'th_near_clock, 0', .false.)
  call near_clock(cpu / 2, cpu, 'th_near_clock, half', .false.)
  call near_clock(cpu * 2, cpu, 'th_near_clock, double', .false.)
  call near_clock(cpu, cpu, 'th_near_clock, the truth', .true.)

  call near(0_8, 'th_near, 0', .false.)
  call near(truth / 2, 'th_near, half', .false.)
  call near(truth * 2, 'th_near, double', .false.)
  call near(truth, 'th_near, the truth', .true.)

  call eq8(0_8, 'th_eq8, 0', .false.)
  call eq8(truth / 2, 'th_eq8, half', .false.)
  call eq8(truth * 2, 'th_eq8, double', .false.)
  call eq8(truth, 'th_eq8, the truth', .true.)

  call eq(0, 'th_eq, 0', .false.)
  call eq(500, 'th_eq, half', .false.)
  call eq(2000, 'th_eq, double', .false.)
  call eq(1000, 'th_eq, the truth', .true.)

  call truth_of(.false., 'th_true, false', .false.)
  call truth_of(.true., 'th_true, true', .true.)
  call th_done()

contains

  ! Record whether the check just made passed as it should, undoing its count.
  subroutine verdict(f, c, what, want_pass)
    integer, intent(in) :: f, c
    character(len=*), intent(in) :: what
    logical, intent(in) :: want_pass
    logical :: passed
    passed = th_failures == f
    th_failures = f
    th_checks = c
    call th_true(passed .eqv. want_pass, what)
  end subroutine verdict

  subroutine near_clock(v, cpu_ns, what, want_pass)
    integer(c_long_long), intent(in) :: v, cpu_ns
    character(len=*), intent(in) :: what
    logical, intent(in) :: want_pass
    integer :: f, c
    f = th_failures; c = th_checks
    call th_near_clock(v, cpu_ns, '(planted) ' // what)
    call verdict(f, c, what, want_pass)
  end subroutine near_clock

  subroutine near(v, what, want_pass)
    integer(c_long_long), intent(in) :: v
    character(len=*), intent(in) :: what
    logical, intent(in) :: want_pass
    integer :: f, c
    f = th_failures; c = th_checks
    call th_near(v, truth, 0.02d0, '(planted) ' // what)
    call verdict(f, c, what, want_pass)
  end subroutine near

  subroutine eq8(v, what, want_pass)
    integer(c_long_long), intent(in) :: v
    character(len=*), intent(in) :: what
    logical, intent(in) :: want_pass
    integer :: f, c
    f = th_failures; c = th_checks
    call th_eq8(v, truth, '(planted) ' // what)
    call verdict(f, c, what, want_pass)
  end subroutine eq8

  subroutine eq(v, what, want_pass)
    integer, intent(in) :: v
    character(len=*), intent(in) :: what
    logical, intent(in) :: want_pass
    integer :: f, c
    f = th_failures; c = th_checks
    call th_eq(v, 1000, '(planted) ' // what)
    call verdict(f, c, what, want_pass)
  end subroutine eq

  subroutine truth_of(v, what, want_pass)
    logical, intent(in) :: v
    character(len=*), intent(in) :: what
    logical, intent(in) :: want_pass
    integer :: f, c
    f = th_failures; c = th_checks
    call th_true(v, '(planted) ' // what)
    call verdict(f, c, what, want_pass)
  end subroutine truth_of
end program harness_planted
