# A first snippet for Sandpad: it runs in a fresh private directory with
# a 30 s time limit, 512 MiB of memory and no network.
import math
import platform

print(f"Hello from Python {platform.python_version()} inside Sandpad")
print("factorial(10) =", math.factorial(10))
print("sqrt(16) =", math.sqrt(16))
