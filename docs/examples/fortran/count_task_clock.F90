! count_task_clock.F90 - count the CPU time of a loop with PAPI's Fortran
! API (PAPIF_*, constants from fpapi.h).  Prints
! "perf::TASK-CLOCK <nanoseconds>"; stops with code 1 if nothing was counted.
program count_task_clock
  implicit none
#include "fpapi.h"
  integer :: es, check, i
  integer*8 :: ns(1)
  double precision :: x

  check = PAPI_VER_CURRENT
  call PAPIF_library_init(check)
  if (check /= PAPI_VER_CURRENT) call fail('PAPIF_library_init', check)
  es = PAPI_NULL
  call PAPIF_create_eventset(es, check)
  if (check /= PAPI_OK) call fail('PAPIF_create_eventset', check)
  call PAPIF_add_named_event(es, 'perf::TASK-CLOCK', check)
  if (check /= PAPI_OK) call fail('PAPIF_add_named_event', check)
  call PAPIF_start(es, check)
  if (check /= PAPI_OK) call fail('PAPIF_start', check)
  x = 0
  do i = 1, 20000000
    x = x + sqrt(dble(i))
  end do
  call PAPIF_stop(es, ns, check)
  if (check /= PAPI_OK) call fail('PAPIF_stop', check)
  print '(a,i0)', 'perf::TASK-CLOCK ', ns(1)
  if (x < 0) print *, x
  call PAPIF_shutdown()
  if (ns(1) <= 0) stop 1

contains

  subroutine fail(what, code)
    character(len=*), intent(in) :: what
    integer, intent(in) :: code
    print '(a,a,i0)', what, ' failed: ', code
    stop 1
  end subroutine fail
end program count_task_clock
