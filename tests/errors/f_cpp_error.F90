! expect: 2:2: the C preprocessor failed: #error
#error this configuration is not supported
subroutine k(x)
  real(8) :: x
  x = 2.0d0 * x
end subroutine
