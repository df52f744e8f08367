# adjc.mk: GNU make (4.3 or later) rules that turn NumPy and Fortran kernels into C with adjc.
# Printed by `adjc makefile`; include it from your Makefile:
#
#     # Where the C goes (default: adjc_out), and the flags of one kernel (its source's stem).
#     # (No comment after a value: make would keep the spaces before it.)
#     ADJC_OUT := gen
#     jacobi_1d_ADJC_FLAGS := --wrt A
#     include adjc.mk
#     app: app.o $(ADJC_OUT)/jacobi_1d.o ; $(CC) -o $@ $^ $(ADJC_LDLIBS)
#
# `$(ADJC_OUT)/STEM.c` and `.h` are made from `STEM.py`, `.f90`, `.F90` or `.f` (in
# $(ADJC_SRC), default: the current directory). `$(ADJC_OUT)/STEM.o` is compiled with
# $(ADJC_CFLAGS) (from `adjc config`) and your CFLAGS.
#
# How the rules work: `adjc transpile -MF $(ADJC_OUT)/STEM.d` writes the dependency file
# STEM.d, listing every file it read (the source, modules found for `use`, `include` and
# `#include` files); STEM.d is the rule's target (a stamp), and is included below so that a
# change to any of those files regenerates. adjc rewrites a C file only when its content
# changes, and make looks at the files' times again after the (empty) rule of the .c and .h:
# an edit that changes no generated line rebuilds no object, and the shared runtime headers
# never make every object out of date. (After such an edit `make -q` reports the .c/.h out
# of date, as their empty rule remains to run; `make` does nothing for them.)

# The rules below do not change which target `make` alone builds (restored at the end).
ADJC_SAVED_DEFAULT_GOAL := $(.DEFAULT_GOAL)

ADJC ?= adjc
ADJC_OUT ?= adjc_out
ADJC_SRC ?= .
# Flags of every kernel; STEM_ADJC_FLAGS adds the flags of one.
ADJC_FLAGS ?=
# none | cblas | mkl
ADJC_BLAS ?= none
# 1: build with OpenMP
ADJC_OPENMP ?= 1

ADJC_CONFIG_FLAGS = --blas $(ADJC_BLAS) $(if $(filter 1,$(ADJC_OPENMP)),--openmp)
ADJC_CFLAGS := $(shell $(ADJC) config --cflags $(ADJC_CONFIG_FLAGS) --runtime-dir $(ADJC_OUT))
ADJC_LDLIBS := $(shell $(ADJC) config --libs $(ADJC_CONFIG_FLAGS))

ADJC_TRANSPILE = $(ADJC) transpile $< -o $(ADJC_OUT) -MF $@ $(ADJC_FLAGS) $($*_ADJC_FLAGS)

$(ADJC_OUT)/%.d: $(ADJC_SRC)/%.py
	$(ADJC_TRANSPILE)
$(ADJC_OUT)/%.d: $(ADJC_SRC)/%.f90
	$(ADJC_TRANSPILE)
$(ADJC_OUT)/%.d: $(ADJC_SRC)/%.F90
	$(ADJC_TRANSPILE)
$(ADJC_OUT)/%.d: $(ADJC_SRC)/%.f
	$(ADJC_TRANSPILE)

# One adjc run makes both (grouped targets); the empty recipe lets make see whether they moved.
$(ADJC_OUT)/%.c $(ADJC_OUT)/%.h &: $(ADJC_OUT)/%.d ;
# With `--fortran-interface` in STEM_ADJC_FLAGS: the Fortran module of bind(C) interfaces and,
# for a Fortran kernel, the drop-in wrappers taking the routine's own arguments.
$(ADJC_OUT)/%_adjc.f90: $(ADJC_OUT)/%.d ;
$(ADJC_OUT)/%_adjc_wrap.f90: $(ADJC_OUT)/%.d ;
# The runtime headers, written by every adjc run.
$(ADJC_OUT)/adjc_runtime.h $(ADJC_OUT)/adjc_blas.h: ;

$(ADJC_OUT)/%.o: $(ADJC_OUT)/%.c $(ADJC_OUT)/%.h
	$(CC) $(CFLAGS) $(ADJC_CFLAGS) -c $< -o $@

# Generated files are kept (not deleted as intermediate files).
.PRECIOUS: $(ADJC_OUT)/%.d $(ADJC_OUT)/%.c $(ADJC_OUT)/%.h $(ADJC_OUT)/%_adjc.f90 $(ADJC_OUT)/%_adjc_wrap.f90

-include $(wildcard $(ADJC_OUT)/*.d)

.DEFAULT_GOAL := $(ADJC_SAVED_DEFAULT_GOAL)
