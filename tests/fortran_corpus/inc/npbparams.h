c     In the style of NPB's generated npbparams.h (not a copy): a tiny class.
      integer problem_size, niter_default
      parameter (problem_size=6, niter_default=2)
      double precision dt_default
      parameter (dt_default = 0.015d0)
