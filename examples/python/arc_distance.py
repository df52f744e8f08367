"""Great-circle distance between two sets of points on the unit sphere (haversine)."""
# adjc check: --sizes N=50
import numpy as np


def arc_distance(theta_1: "float64[N]", phi_1: "float64[N]", theta_2: "float64[N]", phi_2: "float64[N]"):
    temp = np.sin((theta_2 - theta_1) / 2) ** 2 + np.cos(theta_1) * np.cos(theta_2) * np.sin((phi_2 - phi_1) / 2) ** 2
    distance_matrix = 2 * np.arctan2(np.sqrt(temp), np.sqrt(1 - temp))
    return distance_matrix
