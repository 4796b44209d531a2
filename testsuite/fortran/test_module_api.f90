! test_module_api.f90 - free form with `use papi`: system information,
! options, timers, threads, locks, event information and enumeration
! through the PAPIF_* routines, checked against the C API or the kernel;
! and the module's bind(C) interfaces.
module fthread_ids
  implicit none
contains
  function my_thread_id() result(id)
    integer :: id
    id = 4242
  end function my_thread_id
end module fthread_ids

program module_api
  use papi
  use tfharness
  use fthread_ids
  use, intrinsic :: iso_c_binding, only: c_null_char, c_char
  implicit none
  integer(PAPI_INT) :: check, n, m, es, tc, code, cnt, flags, dom, grn, cidx, id
  integer(PAPI_INT) :: ints(5), hw(5)
  integer(PAPI_LONG_LONG) :: t0, t1, c0, c1, dm(PAPIF_DMEM_MAXVAL), dm2(PAPIF_DMEM_MAXVAL), nf
  integer(PAPI_LONG_LONG) :: addrs(6), v(1)
  real(PAPI_FLOAT) :: rev, mhz, cmhz
  character(len=PAPI_MAX_STR_LEN) :: s1, s2, s3, s4, vend, model
  character(kind=c_char) :: cv(128), cm(128)
  character(len=PAPI_HUGE_STR_LEN) :: full
  character(len=PAPI_MAX_STR_LEN) :: full_short
  character(len=:), allocatable :: argv0
  integer :: i, wall0, wall1, rate
  real(8) :: cpu0, cpu1

  check = PAPI_VER_CURRENT
  call PAPIF_library_init(check)
  call th_eq(check, PAPI_VER_CURRENT, 'library_init')
  call th_eq(PAPI_is_initialized(), PAPI_LOW_LEVEL_INITED, 'bind(C) PAPI_is_initialized')

  ! ---- hardware and executable information ----
  call PAPIF_get_hardware_info(ints(1), ints(2), ints(3), ints(4), vend, ints(5), model, rev, mhz)
  call tft_c_hwinfo(hw, cmhz, cv, cm)
  call th_eq(ints(1), hw(1), 'hw ncpu'); call th_eq(ints(2), hw(2), 'hw nnodes')
  call th_eq(ints(3), hw(3), 'hw totalcpus'); call th_eq(ints(4), hw(4), 'hw vendor')
  call th_eq(ints(5), hw(5), 'hw model')
  call th_true(abs(mhz - cmhz) <= 1.0e-3 * max(1.0, abs(cmhz)), 'hw mhz')
  call th_true(vend == cstr(cv), 'hw vendor string'); call th_true(model == cstr(cm), 'hw model string')
  call PAPIF_get_clockrate(n)
  call th_eq(n, nint(cmhz), 'get_clockrate = hw mhz')
  call PAPIF_get_exe_info(full, s1, addrs(1), addrs(2), addrs(3), addrs(4), addrs(5), addrs(6), check)
  call th_eq(check, PAPI_OK, 'get_exe_info')
  ! argv(0) at its own length: a build or stage directory (Spack's) makes
  ! it longer than any fixed buffer (testsuite/fortran/run_long_path.sh).
  call get_command_argument(0, length=i)
  allocate(character(len=i) :: argv0)
  call get_command_argument(0, argv0)
  i = index(argv0, '/', back=.true.)
  call th_true(trim(s1) == argv0(i + 1:), 'exe name = argv(0) basename')
  deallocate(argv0)
  call th_true(full(1:1) == '/' .and. index(full, '/' // trim(s1), back=.true.) > 0, 'exe fullname')
  ! A variable shorter than the path gets its first len characters, no more.
  call PAPIF_get_exe_info(full_short, s2, addrs(1), addrs(2), addrs(3), addrs(4), addrs(5), &
                          addrs(6), check)
  call th_eq(check, PAPI_OK, 'get_exe_info, short fullname')
  call th_true(full_short == full(1:len(full_short)), 'exe fullname cut to the caller''s length')
  call th_true(trim(s2) == trim(s1), 'exe name, second call')
  call th_true(addrs(1) > 0 .and. addrs(2) > addrs(1), 'text range')
  call PAPIF_get_preload(s1, check)
  call th_eq(check, PAPI_OK, 'get_preload'); call th_true(s1 == 'LD_PRELOAD', 'preload env')

  ! ---- memory: resident set grows by the pages touched ----
  call PAPIF_get_dmem_info(dm, check)
  call th_eq(check, PAPI_OK, 'get_dmem_info')
  call th_eq8(dm(PAPIF_DMEM_PAGESIZE), tft_pagesize(), 'dmem pagesize')
  ! touch_pages frees what it touched: grow the heap and keep it
  call grow(4000, dm2)
  call th_true(dm2(PAPIF_DMEM_RESIDENT) - dm(PAPIF_DMEM_RESIDENT) >= (4000 * tft_pagesize() / 1024) * 9 / 10, &
       'dmem resident grew by the touched pages (KB)')

  ! ---- timers against the Fortran clocks ----
  call system_clock(wall0, rate)
  call PAPIF_get_real_usec(t0); call PAPIF_get_real_nsec(c0)
  call cpu_time(cpu0)
  call PAPIF_get_virt_usec(t1)
  call burn(300000000_8)
  call cpu_time(cpu1)
  call system_clock(wall1)
  call PAPIF_get_virt_usec(nf)
  call th_near(nf - t1, int((cpu1 - cpu0) * 1.0d6, 8), 0.05d0, 'virt_usec vs cpu_time')
  call PAPIF_get_real_usec(t1); call PAPIF_get_real_nsec(c1)
  call th_near(t1 - t0, int(real(wall1 - wall0, 8) / rate * 1.0d6, 8), 0.05d0, 'real_usec vs system_clock')
  call th_near(c1 - c0, (t1 - t0) * 1000, 0.01d0, 'real_nsec vs real_usec')
  call PAPIF_get_virt_nsec(c0); call PAPIF_get_virt_cyc(c1); call PAPIF_get_real_cyc(t0)
  call th_true(c0 > 0 .and. c1 > 0 .and. t0 > 0, 'virt_nsec, virt_cyc, real_cyc positive')
  call PAPIF_get_real_cyc(t1)
  call th_true(t1 >= t0, 'real_cyc monotonic')
  ! Intervals, not absolute values: the cycle counter's epoch (a VM's TSC
  ! may count from the host's boot) is not the microsecond clock's.
  c0 = PAPI_get_real_usec(); call PAPIF_get_real_cyc(t0)
  call burn(100000000_8)
  call PAPIF_get_real_cyc(t1); c1 = PAPI_get_real_usec()
  call th_near(c1 - c0, (t1 - t0) / max(1_8, int(cmhz, 8)), 0.05d0, 'bind(C) real_usec ~ cyc/mhz')

  ! ---- options ----
  call PAPIF_get_domain(es, dom, PAPI_DEFDOM, check)
  call th_eq(check, PAPI_OK, 'get_domain default')
  call th_true(iand(dom, PAPI_DOM_USER) /= 0, 'default domain counts user')
  call PAPIF_set_domain(PAPI_DOM_USER, check); call th_eq(check, PAPI_OK, 'set_domain')
  call PAPIF_get_domain(es, dom, PAPI_DEFDOM, check); call th_eq(dom, PAPI_DOM_USER, 'default domain now user')
  call PAPIF_set_domain(12345, check); call th_eq(check, PAPI_EINVAL, 'set_domain bad')
  call PAPIF_set_cmp_domain(PAPI_DOM_USER, 0, check); call th_eq(check, PAPI_OK, 'set_cmp_domain')
  call PAPIF_set_cmp_domain(PAPI_DOM_USER, 99, check); call th_eq(check, PAPI_ENOCMP, 'set_cmp_domain bad cidx')
  es = PAPI_NULL
  call PAPIF_create_eventset(es, check)
  call PAPIF_event_name_to_code('perf::TASK-CLOCK', tc, check)
  call PAPIF_add_event(es, tc, check)
  call PAPIF_set_event_domain(es, PAPI_DOM_USER, check); call th_eq(check, PAPI_OK, 'set_event_domain')
  call PAPIF_get_domain(es, dom, PAPI_DOMAIN, check)
  call th_eq(check, PAPI_OK, 'get_domain of a set'); call th_eq(dom, PAPI_DOM_USER, 'event set domain')
  call PAPIF_get_domain(es, dom, 12345, check); call th_eq(check, PAPI_EINVAL, 'get_domain bad mode')
  call PAPIF_get_granularity(es, grn, PAPI_DEFGRN, check)
  call th_eq(check, PAPI_OK, 'get_granularity default'); call th_eq(grn, PAPI_GRN_THR, 'default granularity')
  call PAPIF_set_granularity(PAPI_GRN_THR, check); call th_eq(check, PAPI_OK, 'set_granularity')
  call PAPIF_set_cmp_granularity(PAPI_GRN_THR, 0, check); call th_eq(check, PAPI_OK, 'set_cmp_granularity')
  call PAPIF_set_granularity(12345, check); call th_eq(check, PAPI_EINVAL, 'set_granularity bad')
  call PAPIF_get_granularity(es, grn, PAPI_GRANUL, check)
  call th_eq(check, PAPI_OK, 'get_granularity of a set'); call th_eq(grn, PAPI_GRN_THR, 'set granularity')
  call PAPIF_get_granularity(es, grn, 12345, check); call th_eq(check, PAPI_EINVAL, 'get_granularity bad mode')
  call PAPIF_set_inherit(PAPI_INHERIT_ALL, check); call th_eq(check, PAPI_ENOSUPP, 'set_inherit (per set only)')
  call PAPIF_set_inherit(7, check); call th_eq(check, PAPI_EINVAL, 'set_inherit bad')
  call PAPIF_set_debug(PAPI_QUIET, check); call th_eq(check, PAPI_OK, 'set_debug')
  call PAPIF_set_debug(99, check); call th_eq(check, PAPI_EINVAL, 'set_debug bad')

  ! ---- bind(C) interfaces on the same set ----
  call th_eq(PAPI_num_events(es), 1, 'bind(C) num_events')
  call th_eq(PAPI_start(es), PAPI_OK, 'bind(C) start')
  call th_eq(PAPI_state(es, n), PAPI_OK, 'bind(C) state'); call th_eq(n, PAPI_RUNNING, 'running')
  call tft_clock_begin()
  t0 = tft_thread_cpu_ns()
  call th_eq(PAPI_reset(es), PAPI_OK, 'bind(C) reset')
  call burn(100000000_8)
  call th_eq(PAPI_read(es, v), PAPI_OK, 'bind(C) read')
  t1 = tft_thread_cpu_ns()
  call th_near_clock(v(1), t1 - t0, 'bind(C) TASK-CLOCK vs thread CPU')
  call th_eq(PAPI_stop(es, v), PAPI_OK, 'bind(C) stop')
  call th_eq(PAPI_event_name_to_code('perf::PAGE-FAULTS' // c_null_char, code), PAPI_OK, 'bind(C) name_to_code')
  call th_eq(PAPI_add_event(es, code), PAPI_OK, 'bind(C) add_event')
  call th_eq(PAPI_add_named_event(es, 'NO_SUCH' // c_null_char), PAPI_ENOEVNT, 'bind(C) add unknown')
  call th_eq(PAPI_event_code_to_name(code, cv), PAPI_OK, 'bind(C) code_to_name')
  call th_true(cstr(cv) == 'perf::PAGE-FAULTS', 'bind(C) name')
  call th_eq(PAPI_query_named_event('perf::TASK-CLOCK' // c_null_char), PAPI_OK, 'bind(C) query_named')
  call th_eq(PAPI_remove_event(es, code), PAPI_OK, 'bind(C) remove_event')
  call th_eq(PAPI_cleanup_eventset(es), PAPI_OK, 'bind(C) cleanup')
  call th_eq(PAPI_destroy_eventset(es), PAPI_OK, 'bind(C) destroy')
  call th_eq(PAPI_start(es), PAPI_ENOEVST, 'bind(C) start destroyed')

  ! ---- event information and enumeration ----
  call PAPIF_get_event_info(tc, s1, s2, s3, cnt, s4, flags, check)
  call th_eq(check, PAPI_OK, 'get_event_info native')
  call th_true(s1 == 'perf::TASK-CLOCK', 'info symbol')
  call PAPIF_get_event_info(PAPI_L1_DCM, s1, s2, s3, cnt, s4, flags, check)
  call th_eq(check, PAPI_OK, 'get_event_info preset')
  call th_true(s1 == 'PAPI_L1_DCM', 'preset symbol')
  call PAPIF_query_event(PAPI_L1_DCM, n)
  if (n /= PAPI_OK) call th_eq(cnt, 0, 'unavailable preset has no native terms')
  call th_true(s3 == 'L1D cache misses' .and. s2 == 'Level 1 data cache misses', 'preset descriptions (presets.csv)')
  call PAPIF_get_event_info(PAPI_NATIVE_MASK + 999999, s1, s2, s3, cnt, s4, flags, check)
  call th_eq(check, PAPI_ENOEVNT, 'get_event_info unknown')
  code = ior(0, PAPI_PRESET_MASK)
  call PAPIF_enum_event(code, PAPI_ENUM_FIRST, check)
  call th_eq(check, PAPI_OK, 'enum_event first preset'); call th_eq(code, PAPI_L1_DCM, 'first preset is L1_DCM')
  n = 1
  do while (check == PAPI_OK)
    call PAPIF_enum_event(code, PAPI_ENUM_EVENTS, check)
    if (check == PAPI_OK) n = n + 1
  end do
  call th_eq(n, PAPI_END - PAPI_L1_DCM, 'enum_event walks every preset')
  call PAPIF_get_component_index('perf_event', cidx)
  code = PAPI_NATIVE_MASK
  call PAPIF_enum_cmp_event(code, PAPI_ENUM_FIRST, cidx, check)
  call th_eq(check, PAPI_OK, 'enum_cmp_event first native')
  call PAPIF_event_code_to_name(code, s1, check)
  call th_eq(check, PAPI_OK, 'first native has a name')
  call PAPIF_enum_cmp_event(code, PAPI_ENUM_FIRST, 99, check)
  call th_eq(check, PAPI_ENOCMP, 'enum_cmp_event bad component')
  call PAPIF_num_components(n); call th_true(n >= 1, 'num_components')
  call PAPIF_num_hwctrs(n); call PAPIF_num_cmp_hwctrs(cidx, m)
  call th_true(n >= m, 'num_hwctrs >= perf_event counters')
  call PAPIF_num_cmp_hwctrs(99, m); call th_eq(m, PAPI_ENOCMP, 'num_cmp_hwctrs bad')

  ! ---- threads, locks, errors ----
  call PAPIF_thread_id(id); call th_eq(id, PAPI_EMISC, 'thread_id before thread_init')
  call PAPIF_thread_init(my_thread_id, check); call th_eq(check, PAPI_OK, 'thread_init')
  call PAPIF_thread_id(id); call th_eq(id, 4242, 'thread_id from the Fortran function')
  call th_true(PAPI_thread_id() == 4242_PAPI_LONG, 'bind(C) thread_id')
  call PAPIF_register_thread(check); call th_eq(check, PAPI_OK, 'register_thread')
  call PAPIF_unregister_thread(check); call th_eq(check, PAPI_OK, 'unregister_thread')
  call PAPIF_lock(PAPI_USR1_LOCK, check); call th_eq(check, PAPI_OK, 'lock')
  call PAPIF_unlock(PAPI_USR1_LOCK, check); call th_eq(check, PAPI_OK, 'unlock')
  call PAPIF_lock(PAPI_NUM_LOCK, check); call th_eq(check, PAPI_EINVAL, 'lock bad')
  call PAPIF_unlock(-1, check); call th_eq(check, PAPI_EINVAL, 'unlock bad')
  call TALLYF_papi35_perror(PAPI_ENOEVNT, s1, check)
  call th_eq(check, PAPI_OK, 'papi35_perror')
  call th_eq(tft_c_strerror(PAPI_ENOEVNT, cv, 128), PAPI_OK, 'C perror35')
  call th_true(s1 == cstr(cv) .and. len_trim(s1) > 0, 'papi35_perror text as in C')
  call PAPIF_perror('fortran perror')   ! prints the last error's detail to stderr
  ! Tally's regions through the bind(C) interfaces (PAPI_EVENTS set by the test)
  call th_eq(tally_region_begin('bindc_region' // c_null_char), PAPI_OK, 'bind(C) tally_region_begin')
  call th_eq(tally_region_end('bindc_region' // c_null_char), PAPI_OK, 'bind(C) tally_region_end')
  call th_eq(tally_region_end('bindc_region' // c_null_char), PAPI_EINVAL, 'bind(C) tally_region_end twice')
  call th_eq(PAPI_hl_region_begin('hl' // c_null_char), PAPI_OK, 'bind(C) hl_region_begin')
  call th_eq(PAPI_hl_read('hl' // c_null_char), PAPI_OK, 'bind(C) hl_read')
  call th_eq(PAPI_hl_region_end('hl' // c_null_char), PAPI_OK, 'bind(C) hl_region_end')
  call th_eq(PAPI_hl_stop(), PAPI_OK, 'bind(C) hl_stop')
  call PAPIF_shutdown()
  call th_done()

contains

  function cstr(c) result(s)
    character(kind=c_char), intent(in) :: c(:)
    character(len=size(c)) :: s
    integer :: k
    s = ' '
    do k = 1, size(c)
      if (c(k) == c_null_char) exit
      s(k:k) = c(k)
    end do
  end function cstr

  subroutine grow(npages, after)
    integer, intent(in) :: npages
    integer(PAPI_LONG_LONG), intent(out) :: after(PAPIF_DMEM_MAXVAL)
    integer(1), allocatable, save :: keep(:)
    integer :: k, ps, rc
    ps = int(tft_pagesize())
    allocate (keep(ps * npages))
    do k = 0, npages - 1
      keep(1 + k * ps) = 1_1
    end do
    call PAPIF_get_dmem_info(after, rc)
  end subroutine grow
end program module_api
