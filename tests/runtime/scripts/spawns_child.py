"""Starts a child that sleeps forever, records its pid in $CHILD_PID_FILE, then hangs."""

import os
import subprocess
import sys
import time

import torch

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(100000)"])
with open(os.environ["CHILD_PID_FILE"], "w") as pid_file:
    pid_file.write(f"{os.getpid()} {child.pid}\n")
weights = torch.randn(3, requires_grad=True)
while True:
    time.sleep(0.1)
