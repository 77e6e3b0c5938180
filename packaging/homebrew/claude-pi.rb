# Homebrew formula for the computer's claude-pi (the Claude Code hooks,
# pairing and the MCP server for a Claude_Pi). packaging/release-client.sh
# fills in the version, URLs and checksums for each release; publish the
# filled claude-pi.rb to the tap (RELEASING.md).
class ClaudePi < Formula
  desc "Claude Code's prompts and Stack-chan's tools on your Claude_Pi"
  homepage "https://github.com/claude-pi/claude-pi"
  version "@VERSION@"
  license "Apache-2.0"

  on_macos do
    on_arm do
      url "@RELEASE_URL@/v@VERSION@/claude-pi_@VERSION@_darwin_arm64.tar.gz"
      sha256 "@SHA256_darwin_arm64@"
    end
    on_intel do
      url "@RELEASE_URL@/v@VERSION@/claude-pi_@VERSION@_darwin_amd64.tar.gz"
      sha256 "@SHA256_darwin_amd64@"
    end
  end

  on_linux do
    on_arm do
      url "@RELEASE_URL@/v@VERSION@/claude-pi_@VERSION@_linux_arm64.tar.gz"
      sha256 "@SHA256_linux_arm64@"
    end
    on_intel do
      url "@RELEASE_URL@/v@VERSION@/claude-pi_@VERSION@_linux_amd64.tar.gz"
      sha256 "@SHA256_linux_amd64@"
    end
  end

  def install
    bin.install "claude-pi"
  end

  def caveats
    <<~EOS
      Pair this computer with your Pi, then give Claude Code the hooks:
        claude-pi pair
        claude plugin marketplace add claude-pi/claude-pi
        claude plugin install pi-buddy@pi-buddy
      (or: claude-pi hook install)
    EOS
  end

  test do
    assert_match "claude-pi", shell_output("#{bin}/claude-pi version")
  end
end
