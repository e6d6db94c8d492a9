# Source: https://github.com/yunjey/pytorch-tutorial/blob/0500d3df5a2a8080ccfccbc00aca0eacc21818db/tutorials/02-intermediate/language_model/data_utils.py
# Rebuilt in our own words: the word dictionary and the corpus loader of the language
# model tutorial: `get_data` reads a text file twice (once to index every word, with an
# end-of-sentence token per line, once to write the ids into a LongTensor), trims it to
# a multiple of the batch size and returns it as (batch_size, -1) ids. No history.
import torch


class Dictionary:
    def __init__(self):
        self.word2idx = {}
        self.idx2word = {}
        self.idx = 0

    def add_word(self, word):
        if word not in self.word2idx:
            self.word2idx[word] = self.idx
            self.idx2word[self.idx] = word
            self.idx += 1

    def __len__(self):
        return len(self.word2idx)


class Corpus:
    def __init__(self):
        self.dictionary = Dictionary()

    def get_data(self, path, batch_size=20):
        tokens = 0
        with open(path) as text:
            for line in text:
                words = line.split() + ["<eos>"]
                tokens += len(words)
                for word in words:
                    self.dictionary.add_word(word)
        ids = torch.LongTensor(tokens)
        position = 0
        with open(path) as text:
            for line in text:
                for word in line.split() + ["<eos>"]:
                    ids[position] = self.dictionary.word2idx[word]
                    position += 1
        num_batches = ids.size(0) // batch_size
        return ids[: num_batches * batch_size].view(batch_size, -1)
