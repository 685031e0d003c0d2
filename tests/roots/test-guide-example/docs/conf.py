# Sphinx の設定（docs/conf.py）。mdmark.config.yaml はリポジトリの一番上にある。
project = "設計文書"
language = "ja"
exclude_patterns = ["_build"]

# myst_parser と sphinx_design も有効になる（ここに並べてもよい）。
extensions = ["mdmark.sphinx_ext"]

# 設定ファイルの場所。省略すると conf.py のフォルダから上へ mdmark.config.yaml を探す。
mdmark_config = "../mdmark.config.yaml"

# タグのページと用語集のページを置くフォルダ（HTML のみ）。None にすると作らない。
mdmark_pages = "mdmark"

# ずれ（drift）は [mdmark.<種類>] の警告になる。種類ごとに黙らせられる。
suppress_warnings = ["mdmark.unindexed_doc"]

# MyST の設定を conf.py に書くと、mdmark.config.yaml の markdown より優先される。
# myst_heading_anchors = 2
