! expect: 10:3: `goto` is not supported
#define N 10
#define DATA_TYPE real(8)



subroutine k(x)
  DATA_TYPE :: x(N)
  x = 2.0d0 * x
  goto 10
10 continue
end subroutine
