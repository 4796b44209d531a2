! test_omp_threads.f90 - the Fortran bindings from OpenMP threads: each
! thread registers, counts its own perf::TASK-CLOCK in its own event set
! (checked against its CLOCK_THREAD_CPUTIME_ID), sees its own thread id
! through PAPIF_thread_init's Fortran function, then opens and closes a
! Tally region (TALLYF_region_begin/end, a high-level region here, whose
! counters take the thread's perf_event slot until PAPIF_hl_stop).
! Results are gathered per thread and checked afterwards.
module omp_ids
  implicit none
contains
  function omp_id() result(id)
    use omp_lib, only: omp_get_thread_num
    integer :: id
    id = 100 + omp_get_thread_num()
  end function omp_id
end module omp_ids

program omp_threads
  use papi
  use tfharness
  use omp_ids
  use omp_lib
  implicit none
  integer, parameter :: nthr = 4
  integer(PAPI_INT) :: check, tc
  integer(PAPI_INT) :: rc(8, 0:nthr - 1), ids(0:nthr - 1)
  integer(PAPI_LONG_LONG) :: cnt(0:nthr - 1), truth(0:nthr - 1)
  integer :: near(0:nthr - 1)
  integer :: t

  check = PAPI_VER_CURRENT
  call PAPIF_library_init(check)
  call th_eq(check, PAPI_VER_CURRENT, 'library_init')
  call PAPIF_thread_init(omp_id, check)
  call th_eq(check, PAPI_OK, 'thread_init')
  call PAPIF_event_name_to_code('perf::TASK-CLOCK', tc, check)
  rc = -999
  call omp_set_num_threads(nthr)
  !$omp parallel num_threads(nthr) private(t)
  t = omp_get_thread_num()
  call per_thread(t, tc, rc(:, t), ids(t), cnt(t), truth(t), near(t))
  !$omp end parallel
  do t = 0, nthr - 1
    call th_eq(rc(1, t), PAPI_OK, 'register_thread')
    call th_eq(rc(2, t), PAPI_OK, 'create + add in thread')
    call th_eq(rc(3, t), PAPI_OK, 'start/stop in thread')
    call th_eq(ids(t), 100 + t, 'thread_id is the thread''s own')
    if (near(t) /= 1) write (0, '(a,i0,a,i0,a,i0)') '  thread ', t, ': TASK-CLOCK ', cnt(t), ' vs thread CPU ', truth(t)
    call th_true(near(t) == 1, 'per-thread TASK-CLOCK vs thread CPU (with the thread''s own extra time)')
    call th_eq(rc(4, t), PAPI_OK, 'unregister_thread')
    call th_eq(rc(5, t), PAPI_OK, 'TALLYF_region_begin in thread')
    call th_eq(rc(6, t), PAPI_OK, 'TALLYF_region_end in thread')
    call th_eq(rc(7, t), PAPI_EINVAL, 'TALLYF_region_end of a closed region')
    call th_eq(rc(8, t), PAPI_OK, 'hl_stop in thread')
  end do
  call PAPIF_shutdown()
  call th_done()

contains

  subroutine per_thread(t, tc, r, id, count, cpu, near)
    integer, intent(in) :: t
    integer(PAPI_INT), intent(in) :: tc
    integer(PAPI_INT), intent(out) :: r(8), id
    integer(PAPI_LONG_LONG), intent(out) :: count, cpu
    integer, intent(out) :: near
    integer(PAPI_INT) :: es, c1, c2
    integer(PAPI_LONG_LONG) :: v(1), t0
    character(len=16) :: name
    call PAPIF_register_thread(r(1))
    es = PAPI_NULL
    call PAPIF_create_eventset(es, c1)
    call PAPIF_add_event(es, tc, c2)
    r(2) = merge(c2, c1, c1 == PAPI_OK)
    call tft_clock_begin()
    t0 = tft_thread_cpu_ns()
    call PAPIF_start(es, c1)
    call burn(100000000_8 + 20000000_8 * t)
    call PAPIF_stop(es, v, c2)
    cpu = tft_thread_cpu_ns() - t0
    r(3) = merge(c2, c1, c1 == PAPI_OK)
    count = v(1)
    near = tft_near_clock(count, cpu)   ! in this thread: its own extra time
    call PAPIF_thread_id(id)
    call PAPIF_destroy_eventset(es, c1)
    write (name, '(a,i0)') 'omp_region_', t
    call TALLYF_region_begin(name, r(5))
    call burn(10000000_8)
    call TALLYF_region_end(name, r(6))
    call TALLYF_region_end(name, r(7))
    call PAPIF_hl_stop(r(8))
    call PAPIF_unregister_thread(r(4))
  end subroutine per_thread
end program omp_threads
