# expect: 2:10: duplicate argument
def f(x, x):
    return 2.0 * x
