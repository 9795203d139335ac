"""Real subtitle text in the languages and legacy encodings caption files are found in.

Each sample is eight cues of everyday dialogue (two of them on two lines), the size of a
short real SubRip file: charset detectors judge the words, so a file needs some. The
expected text is the Python string; the bytes are that string encoded with the codec, so
a test that decodes them back proves the detection, not a round trip of our own.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Sample:
    language: str
    codec: str
    cues: tuple[str, ...]

    def subrip(self, newline: str = "\r\n") -> str:
        """The cues as a SubRip file: index, timing line, text, blank line."""
        blocks = []
        for number, text in enumerate(self.cues):
            start = 2000 + number * 3500
            timing = f"{_srt_time(start)} --> {_srt_time(start + 3000)}"
            blocks.append(newline.join((str(number + 1), timing, *text.split("\n"), "")))
        return newline.join(blocks)

    def segments(self) -> list[tuple[int, int, str]]:
        return [(2000 + i * 3500, 5000 + i * 3500, text) for i, text in enumerate(self.cues)]


def _srt_time(ms: int) -> str:
    seconds, ms = divmod(ms, 1000)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours:02}:{minutes:02}:{seconds:02},{ms:03}"


SAMPLES = (
    Sample(
        "ja",
        "shift_jis",
        (
            "おはようございます。今日はいい天気ですね。",
            "駅まで一緒に歩きませんか？",
            "すみません、この電車は東京駅に止まりますか？",
            "はい、次の駅で乗り換えてください。\n三番線のホームです。",
            "昨日の会議の資料はもう読みましたか？",
            "まだです。今夜読んでおきます。",
            "桜の季節になると、公園は人でいっぱいになります。",
            "ありがとうございました。また会いましょう。",
        ),
    ),
    Sample(
        "zh-Hans",
        "gbk",
        (
            "你好，欢迎来到北京。",
            "今天的天气怎么样？",
            "我们明天早上八点在火车站见面。",
            "这家餐厅的饺子非常好吃。\n我们再点一盘吧。",
            "对不起，我听不懂你说的话。",
            "请问去图书馆怎么走？",
            "一直往前走，然后在第二个路口向左转。",
            "谢谢你的帮助，祝你旅途愉快！",
        ),
    ),
    Sample(
        "zh-Hant",
        "big5",
        (
            "你好，歡迎來到台北。",
            "今天的天氣怎麼樣？",
            "我們明天早上八點在火車站見面。",
            "這家餐廳的小籠包非常好吃。\n我們再點一籠吧。",
            "對不起，我聽不懂你說的話。",
            "請問去圖書館怎麼走？",
            "一直往前走，然後在第二個路口向左轉。",
            "謝謝你的幫助，祝你旅途愉快！",
        ),
    ),
    Sample(
        "ko",
        "euc_kr",
        (
            "안녕하세요. 만나서 반갑습니다.",
            "오늘 날씨가 정말 좋네요.",
            "내일 아침 여덟 시에 기차역에서 만나요.",
            "이 식당의 김치찌개는 아주 맛있어요.\n한 그릇 더 주문할까요?",
            "죄송합니다, 무슨 말씀인지 잘 모르겠어요.",
            "도서관에 어떻게 가요?",
            "똑바로 가다가 두 번째 골목에서 왼쪽으로 도세요.",
            "도와주셔서 감사합니다. 즐거운 여행 되세요!",
        ),
    ),
    Sample(
        "ru",
        "cp1251",
        (
            "Добрый вечер. Рад вас видеть.",
            "Какая сегодня погода?",
            "Мы встретимся завтра в восемь утра на вокзале.",
            "В этом ресторане очень вкусные пельмени.\nЗакажем ещё одну порцию?",
            "Извините, я не понимаю, что вы говорите.",
            "Скажите, пожалуйста, как пройти к библиотеке?",
            "Идите прямо, а потом на втором перекрёстке поверните налево.",
            "Спасибо за помощь! Счастливого пути!",
        ),
    ),
    Sample(
        "fr",
        "cp1252",
        (
            "Bonjour, je suis ravi de vous rencontrer.",
            "Quel temps fait-il aujourd’hui ? Il fait très beau.",
            "Nous nous retrouverons demain à huit heures à la gare.",
            "Les crêpes de ce café sont délicieuses.\nOn en commande encore une ?",
            "Excusez-moi, je ne comprends pas ce que vous dites.",
            "Où se trouve la bibliothèque, s’il vous plaît ?",
            "Allez tout droit, puis tournez à gauche au deuxième carrefour.",
            "Merci beaucoup pour votre aide ! Bon voyage, à bientôt…",
        ),
    ),
    Sample(
        "de",
        "cp1252",
        (
            "Grüß Gott! Schön, dass Sie da sind.",
            "Die Straße zum Bahnhof ist heute gesperrt.",
            "Können Sie mir bitte helfen?",
            "Wir treffen uns morgen früh um acht Uhr am Bahnhof.\nSeien Sie pünktlich!",
            "Das Frühstück in diesem Café ist ausgezeichnet.",
            "Entschuldigung, ich verstehe Sie nicht.",
            "Gehen Sie geradeaus und dann an der zweiten Kreuzung nach links.",
            "Vielen Dank für Ihre Hilfe! „Gute Reise“, sagte sie.",
        ),
    ),
)
# More scripts, each in the legacy code page its subtitle files are found in.
MORE_SAMPLES = (
    Sample(
        "ar",
        "cp1256",
        (
            "مرحبا، كيف حالك اليوم؟",
            "أنا بخير، شكرا لك. وأنت؟",
            "هل تعرف أين محطة القطار؟",
            "اذهب مباشرة ثم انعطف يسارا عند الإشارة.\nستجدها على يمينك.",
            "سنلتقي غدا في الساعة الثامنة صباحا.",
            "لا تتأخر، فالقطار لا ينتظر أحدا.",
            "هذا المطعم يقدم أفضل القهوة في المدينة.",
            "شكرا جزيلا على مساعدتك، رحلة سعيدة!",
        ),
    ),
    Sample(
        "el",
        "cp1253",
        (
            "Καλημέρα, τι κάνεις σήμερα;",
            "Είμαι καλά, ευχαριστώ. Εσύ;",
            "Ξέρεις πού είναι ο σταθμός του τρένου;",
            "Πήγαινε ευθεία και στρίψε αριστερά στο φανάρι.\nΘα τον βρεις στα δεξιά σου.",
            "Θα συναντηθούμε αύριο στις οκτώ το πρωί.",
            "Μην αργήσεις, το τρένο δεν περιμένει κανέναν.",
            "Αυτό το καφενείο έχει τον καλύτερο καφέ της πόλης.",
            "Σε ευχαριστώ πολύ για τη βοήθεια, καλό ταξίδι!",
        ),
    ),
    Sample(
        "he",
        "cp1255",
        (
            "בוקר טוב, מה שלומך היום?",
            "אני בסדר, תודה. ואתה?",
            "אתה יודע איפה תחנת הרכבת?",
            "לך ישר ופנה שמאלה ברמזור.\nהיא תהיה מימינך.",
            "ניפגש מחר בשמונה בבוקר.",
            "אל תאחר, הרכבת לא מחכה לאף אחד.",
            "בבית הקפה הזה יש את הקפה הכי טוב בעיר.",
            "תודה רבה על העזרה, נסיעה טובה!",
        ),
    ),
    Sample(
        "th",
        "cp874",
        (
            "สวัสดีครับ วันนี้เป็นอย่างไรบ้าง",
            "สบายดีครับ ขอบคุณ แล้วคุณล่ะ",
            "คุณรู้ไหมว่าสถานีรถไฟอยู่ที่ไหน",
            "เดินตรงไปแล้วเลี้ยวซ้ายที่สัญญาณไฟ\nจะอยู่ทางขวามือของคุณ",
            "เราจะพบกันพรุ่งนี้ตอนแปดโมงเช้า",
            "อย่ามาสายนะ รถไฟไม่รอใคร",
            "ร้านกาแฟนี้มีกาแฟที่อร่อยที่สุดในเมือง",
            "ขอบคุณมากสำหรับความช่วยเหลือ เดินทางปลอดภัยนะครับ",
        ),
    ),
    Sample(
        "tr",
        "cp1254",
        (
            "Günaydın, bugün nasılsın?",
            "İyiyim, teşekkür ederim. Ya sen?",
            "Tren istasyonunun nerede olduğunu biliyor musun?",
            "Düz git ve ışıklarda sola dön.\nSağ tarafında göreceksin.",
            "Yarın sabah saat sekizde buluşalım.",
            "Geç kalma, tren kimseyi beklemez.",
            "Bu kafede şehrin en güzel kahvesi içiliyor.",
            "Yardımın için çok teşekkürler, iyi yolculuklar!",
        ),
    ),
    Sample(
        "pl",
        "cp1250",
        (
            "Dzień dobry, jak się dzisiaj masz?",
            "Dziękuję, wszystko w porządku. A ty?",
            "Czy wiesz, gdzie jest dworzec kolejowy?",
            "Idź prosto i skręć w lewo na światłach.\nZobaczysz go po prawej stronie.",
            "Spotkajmy się jutro o ósmej rano.",
            "Nie spóźnij się, pociąg na nikogo nie czeka.",
            "W tej kawiarni podają najlepszą kawę w mieście.",
            "Bardzo dziękuję za pomoc, szerokiej drogi!",
        ),
    ),
)

# Real Japanese subtitle files are dense with full-width punctuation (…, 　, 。, 「」);
# charset-normalizer judges their Shift-JIS reading too "messy" and returns no match.
DENSE_JAPANESE = Sample(
    "ja",
    "cp932",
    (
        "「……え？」",
        "そんな……。　嘘でしょ？",
        "……待って。　お願い……！",
        "私は、ここに……いる。",
        "「……うん。」",
        "……ありがとう。　本当に。",
        "何も……言わないで……。",
        "「えっ……？　本当に？」",
        "……そう、か。",
        "――行こう。　早く。",
        "（足音）",
        "「どこへ……行くの？」",
    ),
)


def long_sample(sample: Sample, cues: int) -> Sample:
    """The sample's dialogue run on for `cues` cues: the size of a real episode's file."""
    return Sample(
        sample.language, sample.codec, tuple(sample.cues[i % len(sample.cues)] for i in range(cues))
    )


# UTF-16 files carry a byte-order mark, which decides the encoding before any detection.
UTF16_SAMPLES = (
    Sample("ja", "utf-16-le", SAMPLES[0].cues),
    Sample("ru", "utf-16-be", SAMPLES[4].cues),
)


def encoded(sample: Sample, newline: str = "\r\n") -> bytes:
    """The sample's SubRip bytes; UTF-16 ones start with the byte-order mark."""
    body = sample.subrip(newline).encode(sample.codec)
    if sample.codec == "utf-16-le":
        return b"\xff\xfe" + body
    if sample.codec == "utf-16-be":
        return b"\xfe\xff" + body
    return body
