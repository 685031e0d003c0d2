import os

os.system("touch PWNED-EXT")


def setup(app):
    os.system("touch PWNED-EXT")
    return {"parallel_read_safe": True}
