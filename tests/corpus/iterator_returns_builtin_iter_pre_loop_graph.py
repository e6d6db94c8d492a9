# runnable
# A collection class whose `__iter__` hands back `iter()` of the list it keeps: iterating
# it yields that list's rows. They are rows of features encoded once, before the loop, by
# a layer with parameters, so each row reaches that one graph: the second backward raises.
import torch


class Rows:
    def __init__(self, table):
        self.rows = list(table)

    def __iter__(self):
        return iter(self.rows)


torch.manual_seed(0)
encoder = torch.nn.Linear(4, 4)
encoded = encoder(torch.randn(6, 4))
head = torch.nn.Linear(4, 1)
for row in Rows(encoded):
    head(row).sum().backward()  # expect: AG001
