#ifndef DATA_TYPE
# define DATA_TYPE double precision
#endif
#define _PB_N n
#define _PB_M m
