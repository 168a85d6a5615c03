import kernel_tuner
from x import y
