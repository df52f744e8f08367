# expect: 4:6: unexpected indent
def f(x):
    y = 2.0 * x
     return y
