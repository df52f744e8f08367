! In the style of CloverLeaf's definitions_module (not a copy): a chunk
! type holding a field type with allocatable arrays, and a module array
! of chunks.
MODULE definitions_module
  IMPLICIT NONE
  TYPE field_type
    REAL(KIND=8), DIMENSION(:,:), ALLOCATABLE :: density0, energy0, pressure
    INTEGER :: x_min, y_min, x_max, y_max
  END TYPE field_type
  TYPE chunk_type
    INTEGER :: task
    TYPE(field_type) :: field
  END TYPE chunk_type
  TYPE(chunk_type), ALLOCATABLE :: chunks(:)
  INTEGER :: number_of_chunks
END MODULE definitions_module
