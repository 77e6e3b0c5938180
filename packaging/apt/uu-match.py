# unattended-upgrades' own matcher against the image's Origins-Pattern
# (packaging/apt/test.sh): the Claude_Pi origin at the project's site is
# allowed, the same origin at any other site is not.
#
#   python3 uu-match.py UNATTENDED-UPGRADE-SCRIPT APT-CONF SITE
#
# The script is Debian's /usr/bin/unattended-upgrade, loaded as a module (its
# main() runs only as a program); it needs python3-apt. Exits 1 when either
# answer is wrong, printing the patterns and both answers.
import importlib.machinery, importlib.util, sys, types
import apt_pkg  # python3-apt
path, conf, site = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    import distro_info  # noqa: F401 (u-u imports it; its matcher does not use it)
except ImportError:
    sys.modules["distro_info"] = types.ModuleType("distro_info")
loader = importlib.machinery.SourceFileLoader("uu", path)
uu = importlib.util.module_from_spec(importlib.util.spec_from_loader("uu", loader))
loader.exec_module(uu)
apt_pkg.init_config()
apt_pkg.read_config_file(apt_pkg.config, conf)
allowed = [p for p in apt_pkg.config.value_list("Unattended-Upgrade::Origins-Pattern") if "Claude_Pi" in p]
mine = types.SimpleNamespace(origin="Claude_Pi", label="Claude_Pi", archive="stable", codename="stable", component="main", site=site)
other = types.SimpleNamespace(**{**vars(mine), "site": "impostor.example"})
print(allowed, uu.is_allowed_origin(mine, allowed), uu.is_allowed_origin(other, allowed))
sys.exit(0 if allowed and uu.is_allowed_origin(mine, allowed) and not uu.is_allowed_origin(other, allowed) else 1)
