# expect: 4:1: class
import numpy as np

class Model:
    def forward(self, x):
        return x * 2.0
