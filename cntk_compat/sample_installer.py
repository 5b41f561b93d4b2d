"""cntk.sample_installer: fetch CNTK's sample scripts and data (the zip CNTK published for its release)."""
import os
import subprocess
import sys
import tempfile
import textwrap
import urllib.request
import zipfile

from . import __version__

__all__ = ["module_is_unreleased", "default_sample_dir", "default_sample_url", "install_samples"]


def module_is_unreleased():
    """Whether this is a development version (its version ends with '+')."""
    return __version__.endswith("+")


def default_sample_dir():
    """The folder the samples of this version unpack into: CNTK-Samples-<version with dashes>."""
    version = __version__[:-1] if module_is_unreleased() else __version__
    return "CNTK-Samples-%s" % version.replace(".", "-")


def default_sample_url():
    return "https://cntk.ai/Samples/%s.zip" % default_sample_dir()


def install_samples(url=None, directory=None, quiet=False):
    """Download the samples zip from ``url`` (default: this version's), unpack it into ``directory`` (which
    must not exist or be empty) and pip-install its requirements.txt, if it has one."""
    def say(text):
        if not quiet:
            print(textwrap.fill(text, subsequent_indent=" " * 4), "\n")

    if not url:
        if module_is_unreleased():
            say("WARNING: You are not on a released CNTK module version. When running into problems running "
                "samples, please check https://github.com/Microsoft/CNTK for updated versions")
        url = default_sample_url()
    directory = directory or default_sample_dir()
    if os.path.lexists(directory) and not (os.path.isdir(directory) and not os.listdir(directory)):
        raise ValueError("directory %s must be non-existing or point to an empty directory" % directory)
    with tempfile.TemporaryDirectory() as scratch:
        zip_path = os.path.join(scratch, "samples.zip")
        say("INFO: retrieving " + url)
        urllib.request.urlretrieve(url, zip_path)
        say("INFO: unzipping to directory " + directory)
        with zipfile.ZipFile(zip_path) as archive:
            archive.extractall(directory)
    requirements = os.path.join(directory, "requirements.txt")
    if os.path.isfile(requirements):
        say("INFO: installing requirements")
        subprocess.check_call([sys.executable, "-m", "pip", "install", "-r", requirements])
    else:
        say("INFO: no requirements.txt found, skipping requirements installation")
