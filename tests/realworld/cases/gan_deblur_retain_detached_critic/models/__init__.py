# Source: https://github.com/VITA-Group/DeblurGANv2/blob/c16bd9f5be63885389a57202c74023531d9ca086/models/__init__.py
# The repository's models package marker.
