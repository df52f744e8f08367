! The kind of the model's reals (used by heat_params; found by `use` in a -I directory).
module heat_kinds
  implicit none
  integer, parameter :: dp = selected_real_kind(15, 307)
end module heat_kinds
