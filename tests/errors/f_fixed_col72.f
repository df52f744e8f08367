! expect: 4:73: past column 72
      subroutine k(x)
      real*8 x
      x = x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x
      end
