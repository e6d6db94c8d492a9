# Source: https://github.com/ruohoruotsi/LSTM-Music-Genre-Classification/blob/6f59ff57fcfdbd20888b6755152c93f82ab21670/GenreFeatureData.py
# Rebuilt in our own words: the genre-feature data class (the repository's
# GenreFeatureData; the case imports it as AudioFeatures): `load()` reads the
# preprocessed per-frame features (128 frames x 33: MFCC, spectral centroid, chroma,
# spectral contrast) and one-hot genre targets of the train, validation and test splits
# from .npy files into numpy arrays on the object. Plain data: nothing has history.
import numpy as np


class AudioFeatures:
    genre_list = ["classical", "country", "disco", "hiphop", "jazz", "metal", "pop", "reggae"]
    files = {
        "train_X": "data_train_input.npy", "train_Y": "data_train_target.npy",
        "dev_X": "data_validation_input.npy", "dev_Y": "data_validation_target.npy",
        "test_X": "data_test_input.npy", "test_Y": "data_test_target.npy",
    }  # fmt: skip
    train_X = train_Y = dev_X = dev_Y = test_X = test_Y = None

    def __init__(self):
        self.hop_length = 512

    def load(self):
        for name, path in self.files.items():
            setattr(self, name, np.load(path))

    def one_hot(self, genres):
        encoded = np.zeros((genres.shape[0], len(self.genre_list)))
        for row, genre in enumerate(genres):
            encoded[row, self.genre_list.index(genre)] = 1
        return encoded
