"""Write portal/data/common_passwords.txt: the passwords refused as too common.

No list can be downloaded here, so the file is generated from a curated base of the
passwords that top every published "most common passwords" ranking (numbers, keyboard
walks, words, names, sports teams, seasons and months, famous phrases), plus the
decorations people add to pass composition rules: a capital first letter, a year,
'123', '!' ('Password123!', 'Welcome2024!', 'Qwerty123456!'). Entries are lowercase;
the check (portal/domain/password_policy.py) is case-insensitive and also compares the
letter "core" of a password, so 'P@ssw0rd1234!' is refused because of 'password'.

Run `python tools/common_passwords.py` from the project root to regenerate.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "portal" / "data" / "common_passwords.txt"

NUMBERS = """
123456 12345678 123456789 1234567890 12345 1234 1234567 111111 123123 000000 654321 666666
121212 112233 123321 7777777 777777 555555 11111111 131313 222222 333333 444444 888888
999999 987654321 87654321 12344321 123654 159753 147258369 123123123 1111111111 0123456789
123456789012 111111111111 000000000000 121212121212 123123123123 1234512345 1q2w3e 1q2w3e4r
1q2w3e4r5t 1q2w3e4r5t6y 1qaz2wsx 1qazxsw2 2wsx3edc zaq12wsx zaq1zaq1 q1w2e3r4 q1w2e3r4t5
q1w2e3r4t5y6 qazwsx qazwsxedc qwerty qwertyuiop qwerty123 qwert asdfgh asdfghjkl asdf asdfasdf
zxcvbn zxcvbnm zxcvbnm123 qweasd qweasdzxc 1qaz2wsx3edc qwer1234 abcd1234 abc123 abc12345
a1b2c3 a1b2c3d4 aa123456 aaaaaa abcdef abcdefg abcdefgh 123abc 123qwe 123qweasd 1a2b3c
""".split()

WORDS = """
password passw0rd p@ssword p@ssw0rd passwd pass password1 mypassword yourpassword newpassword
oldpassword secretpassword passwordpassword nopassword changeme changeit default guest
admin administrator root superuser sysadmin webadmin login letmein letmeinplease welcome
welcome1 hello hellothere helloworld secret supersecret topsecret trustno1 trustnoone access
master mastermind iloveyou iloveyou1 loveyou lovely love lover loveme iloveme ilovegod iloveu
princess prince sunshine sunflower shadow dragon dragons monkey monkeys football baseball
basketball soccer hockey tennis golf golfer cricket rugby volleyball swimming running
superman batman spiderman ironman wonderwoman starwars startrek jedi yoda skywalker
pokemon pikachu minecraft fortnite roblox nintendo playstation xbox gamer gaming zelda mario
computer internet google facebook instagram twitter linkedin youtube microsoft apple samsung
iphone android windows linux ubuntu hacker hacking matrix cyber
freedom liberty america usa canada london paris berlin chicago boston dallas austin texas
florida california newyork miami seattle denver
summer winter spring autumn fall january february march april may june july august
september october november december monday tuesday wednesday thursday friday saturday sunday
chocolate cookie cookies cheese banana apple orange lemon cherry strawberry pepper peanut
coffee pizza chicken butter honey sugar candy cupcake muffin
flower flowers rainbow butterfly angel angels heaven blessed blessing faith jesus christ
jesus1 jesuschrist godisgood hallelujah trinity grace hope peace happy smile
family friends friend forever together always whatever nothing something everything
money dollar dollars cash rich million billion lucky winner success business company
office work worker manager boss qwerty1 killer hunter ranger ninja samurai warrior soldier
knight wizard merlin gandalf frodo hobbit phoenix falcon eagle eagles tiger tigers lion
lions bear bears wolf wolves shark sharks panther panthers cobra viper python snake
horse pony bulldog puppy doggy doggie kitty kitten pussycat cat dog bird fish
buster charlie max bailey bella lucy daisy molly maggie sophie sadie chloe coco rocky
duke bear teddy teddybear toby jack jake buddy oscar tigger pepper ginger shadow1
mustang corvette camaro ferrari porsche mercedes bmw audi toyota honda harley yamaha
ducati jaguar chevy chevrolet dodge ford jeep nissan mazda subaru tesla
michael jennifer jessica ashley amanda joshua matthew daniel andrew christopher robert
thomas william james charles david richard joseph steven anthony justin brandon jordan
taylor morgan nicole michelle melissa heather samantha stephanie elizabeth rachel hannah
sarah emily lauren megan amber brittany danielle natalie victoria alexander alexandra
benjamin samuel patrick george edward oliver henry harry jackson tyler austin dylan
kevin brian jason eric mark paul peter john johnny mike chris alex sam nick tom steve
maria anna laura linda susan karen lisa nancy betty sandra donna carol ruth sharon
jasmine monica andrea natasha nikita diana sophia olivia emma ava mia isabella
liverpool chelsea arsenal manchester manutd manchesterunited barcelona realmadrid juventus
milan bayern celtic rangers tottenham everton yankees redsox lakers celtics bulls
cowboys steelers packers patriots raiders broncos giants dolphins jets bengals
metallica nirvana slipknot blink182 linkinpark greenday eminem beatles ledzeppelin
pinkfloyd acdc ironmaiden queen madonna beyonce rihanna shakira justinbieber
qwertyuiop asdfghjkl zxcvbnm qazwsx azerty qwertz
letmein123 welcome123 admin123 password123 test test123 testing tester demo sample
example user username usuario contrasena motdepasse passwort parola haslo salasana
senha wachtwoord
whatever1 hello123 iloveyou123 princess123 monkey123 dragon123 football123 baseball123
opensesame abracadabra alohomora expelliarmus
correcthorsebatterystaple thequickbrownfox
thequickbrownfoxjumpsoverthelazydog iloveyouforever iloveyousomuch youaremysunshine
letitbe imagine yesterday heyjude bohemianrhapsody stairwaytoheaven
maytheforcebewithyou tothemoon hodl bitcoin ethereum crypto blockchain
asdfqwer qwerasdf qwertyasdf asdfjkl jkl123 poiuytrewq mnbvcxz lkjhgfdsa
""".split()

# The words people most often dress up to satisfy composition rules.
DECORATED = """
password welcome qwerty letmein iloveyou admin summer winter spring autumn monkey dragon
sunshine princess football baseball master shadow superman batman michael jennifer
charlie freedom hello secret login starwars pokemon minecraft liverpool chelsea
company office manager changeme trustno1 january february march april june july august
september october november december monday friday america london chicago jordan
hunter killer soccer hockey computer internet google facebook samsung iphone
""".split()

SUFFIXES = [
    "1",
    "12",
    "123",
    "1234",
    "12345",
    "123456",
    "!",
    "1!",
    "12!",
    "123!",
    "1234!",
    "123456!",
    "@123",
    "#1",
    "!!",
    "01",
]
YEARS = [str(y) for y in range(2015, 2027)] + ["1990", "1995", "1999", "2000", "2005", "2010"]


def entries() -> list[str]:
    out: set[str] = set(NUMBERS) | set(WORDS)
    for word in DECORATED:
        for suffix in SUFFIXES:
            out.add(word + suffix)
        for year in YEARS:
            out.add(word + year)
            out.add(word + year + "!")
            out.add(word + "@" + year)
    return sorted(e.lower() for e in out if e)


def main() -> None:
    lines = entries()
    header = [
        "# Passwords refused as too common (lowercase; compared case-insensitively).",
        "# Generated by tools/common_passwords.py; edit that file, then regenerate.",
    ]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(header + lines) + "\n", encoding="utf-8")
    print(f"{OUT.relative_to(ROOT)}: {len(lines)} entries")


if __name__ == "__main__":
    main()
