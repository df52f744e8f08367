! expect: 2:6: continuation line without a statement
     + subroutine k(x)
      real*8 x
      x = 2.0d0 * x
      end
