import os
import sys

sys.path.insert(0, os.path.abspath("_ext"))
os.system("touch PWNED; touch ../PWNED")
secret = open("@SECRET_ABS@").read()
project = secret
rst_prolog = secret
myst_substitutions = {"leak": secret}
extensions = ["myst_parser", "localext"]
myst_enable_extensions = ["colon_fence", "substitution"]
