! In the style of CloverLeaf's data_module (not a copy): global parameters.
MODULE data_module
  IMPLICIT NONE
  REAL(KIND=8), PARAMETER :: g_version = 1.3
  INTEGER, PARAMETER :: g_ibig = 640000
  REAL(KIND=8), PARAMETER :: g_small = 1.0e-16, g_big = 1.0e+21
  INTEGER, PARAMETER :: g_xdir = 1, g_ydir = 2
  INTEGER :: g_out = 6
END MODULE data_module
