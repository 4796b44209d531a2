! tharness.f90 - the Fortran side of Tally's test harness: checks that
! count failures, ground-truth helpers from fhelper.c, page touching and
! CPU burning.  `call th_done()` ends a test (exit 1 on any failure, or when no check
! was made).
module tfharness
  use, intrinsic :: iso_c_binding, only: c_int, c_long_long, c_float, c_char, c_double
  implicit none
  integer, save :: th_failures = 0, th_checks = 0

  interface
    function tft_minflt() bind(C, name='tft_minflt') result(v)
      import :: c_long_long
      integer(c_long_long) :: v
    end function tft_minflt
    function tft_thread_cpu_ns() bind(C, name='tft_thread_cpu_ns') result(v)
      import :: c_long_long
      integer(c_long_long) :: v
    end function tft_thread_cpu_ns
    subroutine tft_clock_begin() bind(C, name='tft_clock_begin')
    end subroutine tft_clock_begin
    function tft_near_clock(counted, cpu_ns) bind(C, name='tft_near_clock') result(v)
      import :: c_long_long, c_int
      integer(c_long_long), value :: counted, cpu_ns
      integer(c_int) :: v
    end function tft_near_clock
    function tft_pagesize() bind(C, name='tft_pagesize') result(v)
      import :: c_long_long
      integer(c_long_long) :: v
    end function tft_pagesize
    function tft_c_epc(event) bind(C, name='tft_c_epc') result(rc)
      import :: c_int
      integer(c_int), value :: event
      integer(c_int) :: rc
    end function tft_c_epc
    subroutine tft_c_hwinfo(ints, mhz, vendor, model) bind(C, name='tft_c_hwinfo')
      import :: c_int, c_float, c_char
      integer(c_int) :: ints(5)
      real(c_float) :: mhz
      character(kind=c_char) :: vendor(128), model(128)
    end subroutine tft_c_hwinfo
    function tft_c_strerror(code, buf, len) bind(C, name='tft_c_strerror') result(rc)
      import :: c_int, c_char
      integer(c_int), value :: code, len
      character(kind=c_char) :: buf(*)
      integer(c_int) :: rc
    end function tft_c_strerror
  end interface

contains

  subroutine th_true(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    th_checks = th_checks + 1
    if (.not. cond) then
      th_failures = th_failures + 1
      write (0, '(a,a)') 'FAILED: ', what
    end if
  end subroutine th_true

  subroutine th_eq(a, b, what)
    integer, intent(in) :: a, b
    character(len=*), intent(in) :: what
    th_checks = th_checks + 1
    if (a /= b) then
      th_failures = th_failures + 1
      write (0, '(a,a,a,i0,a,i0,a)') 'FAILED: ', what, ' (', a, ' /= ', b, ')'
    end if
  end subroutine th_eq

  subroutine th_eq8(a, b, what)
    integer(c_long_long), intent(in) :: a, b
    character(len=*), intent(in) :: what
    th_checks = th_checks + 1
    if (a /= b) then
      th_failures = th_failures + 1
      write (0, '(a,a,a,i0,a,i0,a)') 'FAILED: ', what, ' (', a, ' /= ', b, ')'
    end if
  end subroutine th_eq8

  ! |a-b| <= rel*|b|
  subroutine th_near(a, b, rel, what)
    integer(c_long_long), intent(in) :: a, b
    real(8), intent(in) :: rel
    character(len=*), intent(in) :: what
    th_checks = th_checks + 1
    if (abs(real(a - b, 8)) > rel * abs(real(b, 8))) then
      th_failures = th_failures + 1
      write (0, '(a,a,a,i0,a,i0,a,f6.3,a)') 'FAILED: ', what, ' (', a, ' vs ', b, &
           ' within ', rel, ')'
    end if
  end subroutine th_near

  ! TASK-CLOCK ns against thread CPU ns over a window this thread opened
  ! with tft_clock_begin(): TH_NEAR_CLOCK's rule (tharness.h), with the
  ! thread's own measured extra time above.  Call it in that thread.
  subroutine th_near_clock(counted, cpu, what)
    integer(c_long_long), intent(in) :: counted, cpu
    character(len=*), intent(in) :: what
    th_checks = th_checks + 1
    if (tft_near_clock(counted, cpu) /= 1) then
      th_failures = th_failures + 1
      write (0, '(a,a,a,i0,a,i0,a)') 'FAILED: ', what, ' (', counted, ' vs ', cpu, ')'
    end if
  end subroutine th_near_clock

  subroutine th_done()
    write (*, '(i0,a,i0,a)') th_checks, ' checks, ', th_failures, ' failed'
    if (th_failures /= 0) error stop 1
    if (th_checks == 0) then
      write (0, '(a)') 'FAILED: the test made no check'
      error stop 1
    end if
  end subroutine th_done

  subroutine th_skip(why)
    character(len=*), intent(in) :: why
    write (*, '(a,a)') 'SKIP: ', why
    stop 77
  end subroutine th_skip

  ! Touch npages fresh pages (one minor fault each); returns the faults the
  ! kernel counted for this thread meanwhile.
  function touch_pages(npages) result(faults)
    integer, intent(in) :: npages
    integer(c_long_long) :: faults, f0, ps
    integer(1), allocatable :: buf(:)
    integer :: k
    ps = tft_pagesize()
    f0 = tft_minflt()
    allocate (buf(int(ps) * npages))
    do k = 0, npages - 1
      buf(1 + k * int(ps)) = int(mod(k, 100), 1)
    end do
    faults = tft_minflt() - f0
    if (sum(int(buf(1:int(ps) * npages:int(ps)))) < 0) write (*, *) 'unreachable'
    deallocate (buf)
  end function touch_pages

  ! Spin on the CPU for about `ns` nanoseconds of this thread's CPU time.
  subroutine burn(ns)
    integer(c_long_long), intent(in) :: ns
    integer(c_long_long) :: t0
    real(8) :: x
    integer :: i
    t0 = tft_thread_cpu_ns()
    x = 1.0d0
    do while (tft_thread_cpu_ns() - t0 < ns)
      do i = 1, 1000
        x = x * 1.0000001d0 + 1.0d-9
      end do
    end do
    if (x < 0) write (*, *) x
  end subroutine burn
end module tfharness
