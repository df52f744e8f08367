c     In the style of the NAS Parallel Benchmarks' timers.f (not a copy):
c     the timer routines every NPB kernel calls under `if (timeron)`. The
c     corpus gives this file with the NPB routines so that gfortran can
c     link the original for the forward comparison; adjc leaves the calls
c     out (profiling hooks), whether or not the files define them.
      subroutine timer_clear(n)
      implicit none
      integer n
      double precision start(64), elapsed(64)
      common /tt/ start, elapsed
      elapsed(n) = 0.0d0
      return
      end

      subroutine timer_start(n)
      implicit none
      integer n
      double precision start(64), elapsed(64)
      common /tt/ start, elapsed
      real t
      call cpu_time(t)
      start(n) = dble(t)
      return
      end

      subroutine timer_stop(n)
      implicit none
      integer n
      double precision start(64), elapsed(64)
      common /tt/ start, elapsed
      real t
      call cpu_time(t)
      elapsed(n) = elapsed(n) + dble(t) - start(n)
      return
      end
