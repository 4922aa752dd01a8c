// Every customer email's words, in English, Sinhala and Tamil: a subject and paragraphs per kind,
// with `{name}` placeholders that views/emails/render.ts fills (escaped in the HTML). The kinds
// are DESIGN.md's contract for `kasi emails`.
import type { EmailKind } from '../../domain/emails';
import type { Locale } from '../../domain/locale';

interface KindWords {
  subject: string;
  paragraphs: string[];
  /** The button to the page the email is about (the invoice's), when it has one. */
  action?: string;
}

interface Words {
  hello: string;
  helloNamed: string;
  footer: string;
  /** payment_failed's second paragraph: when the card is tried again, or that it is not. */
  retryOn: string;
  noRetry: string;
  /** An invoice's adjustments, between its lines and its total (views/invoice-summary.ts): emails and the invoice page. */
  summary: { subtotal: string; discount: string; discountNamed: string; taxAdded: string; taxIncluded: string; total: string };
  /** An invoice's lines below its total, when not 0: the credit balance it used, its credit notes. */
  creditApplied: string;
  creditNotes: string;
  kinds: Record<EmailKind, KindWords>;
}

const en: Words = {
  hello: 'Hello,',
  helloNamed: 'Hello {customer},',
  footer: 'This email was sent by {merchant} through Kasi.',
  retryOn: 'We will try your card again on {nextAttempt}.',
  noRetry: 'We will not try your card again: please pay the invoice on its page.',
  summary: { subtotal: 'Subtotal', discount: 'Discount', discountNamed: 'Discount ({coupon})', taxAdded: '{name} {percentage}%', taxIncluded: '{name} {percentage}% (included in the prices)', total: 'Total' },
  creditApplied: 'Credit applied from your balance: {credit}',
  creditNotes: 'Credit notes: {credit}',
  kinds: {
    receipt: {
      subject: 'Receipt from {merchant}: {amount}',
      paragraphs: ['Thank you for your payment of {amount} to {merchant} on {date}.', 'For: {description}', 'Paid with {card}.', 'Payment reference: {paymentId}'],
    },
    card_saved: {
      subject: 'Your card is saved with {merchant}',
      paragraphs: ['As you agreed, your {card} is saved with {merchant} for future payments.', 'You can ask {merchant} to remove it at any time.'],
    },
    invoice: {
      subject: 'Invoice {number} from {merchant}: {amount} due on {dueDate}',
      paragraphs: ['{merchant} has sent you invoice {number} for {amount}.', 'Please pay it by {dueDate}.'],
      action: 'View and pay the invoice',
    },
    invoice_reminder: {
      subject: 'Reminder: invoice {number} from {merchant} is due on {dueDate}',
      paragraphs: ['Invoice {number} for {amount} from {merchant} is due on {dueDate}.', 'If you have already paid it, thank you: you can ignore this email.'],
      action: 'View and pay the invoice',
    },
    invoice_overdue: {
      subject: 'Invoice {number} from {merchant} is overdue',
      paragraphs: ['Invoice {number} for {amount} from {merchant} was due on {dueDate} and is not paid yet.', 'Please pay it as soon as you can.'],
      action: 'Pay the invoice',
    },
    payment_failed: {
      subject: 'Your payment of {amount} to {merchant} did not go through',
      paragraphs: ['We could not charge your card for invoice {number} ({amount}).', '{retry}', 'You can pay it now, with this card or another:'],
      action: 'Pay the invoice',
    },
    trial_will_end: {
      subject: 'Your {product} trial with {merchant} ends on {trialEnd}',
      paragraphs: ['Your free trial of {product} ends on {trialEnd}.', 'From then on, {amount} is charged for each billing period.'],
    },
    subscription_canceled: {
      subject: 'Your {product} subscription with {merchant} is canceled',
      paragraphs: ['Your subscription to {product} with {merchant} was canceled on {date}.', 'You will not be charged for it again.'],
    },
  },
};

const si: Words = {
  hello: 'ආයුබෝවන්,',
  helloNamed: 'ආයුබෝවන් {customer},',
  footer: 'මෙම විද්‍යුත් තැපෑල Kasi හරහා {merchant} විසින් එවන ලදී.',
  retryOn: 'අපි {nextAttempt} දින ඔබගේ කාඩ්පතෙන් නැවත අය කිරීමට උත්සාහ කරමු.',
  noRetry: 'අපි ඔබගේ කාඩ්පතෙන් නැවත අය කිරීමට උත්සාහ නොකරමු: කරුණාකර ඉන්වොයිසිය එහි පිටුවේදී ගෙවන්න.',
  summary: { subtotal: 'උප එකතුව', discount: 'වට්ටම', discountNamed: 'වට්ටම ({coupon})', taxAdded: '{name} {percentage}%', taxIncluded: '{name} {percentage}% (මිල ගණන්වලට ඇතුළත්)', total: 'එකතුව' },
  creditApplied: 'ඔබගේ ශේෂයෙන් යෙදූ බැර: {credit}',
  creditNotes: 'බැර සටහන්: {credit}',
  kinds: {
    receipt: {
      subject: '{merchant} වෙතින් ලදුපත: {amount}',
      paragraphs: ['{date} දින {merchant} වෙත ඔබ කළ {amount} ගෙවීමට ස්තූතියි.', 'විස්තරය: {description}', '{card} මගින් ගෙවන ලදී.', 'ගෙවීම් යොමු අංකය: {paymentId}'],
    },
    card_saved: {
      subject: 'ඔබගේ කාඩ්පත {merchant} සමඟ සුරැකිණි',
      paragraphs: ['ඔබ එකඟ වූ පරිදි, අනාගත ගෙවීම් සඳහා ඔබගේ {card} {merchant} සමඟ සුරකින ලදී.', 'ඕනෑම වේලාවක එය ඉවත් කරන ලෙස ඔබට {merchant} ගෙන් ඉල්ලා සිටිය හැක.'],
    },
    invoice: {
      subject: '{merchant} වෙතින් {number} ඉන්වොයිසිය: {amount}, {dueDate} දිනට පෙර ගෙවිය යුතුය',
      paragraphs: ['{merchant} ඔබට {amount} සඳහා {number} ඉන්වොයිසිය එවා ඇත.', 'කරුණාකර {dueDate} දිනට පෙර එය ගෙවන්න.'],
      action: 'ඉන්වොයිසිය බලා ගෙවන්න',
    },
    invoice_reminder: {
      subject: 'මතක් කිරීම: {merchant} හි {number} ඉන්වොයිසිය {dueDate} දින ගෙවිය යුතුය',
      paragraphs: ['{merchant} හි {amount} ක් වූ {number} ඉන්වොයිසිය {dueDate} දින ගෙවිය යුතුය.', 'ඔබ දැනටමත් එය ගෙවා ඇත්නම්, ස්තූතියි: මෙම විද්‍යුත් තැපෑල නොසලකා හරින්න.'],
      action: 'ඉන්වොයිසිය බලා ගෙවන්න',
    },
    invoice_overdue: {
      subject: '{merchant} හි {number} ඉන්වොයිසිය ගෙවීමේ දිනය ඉක්මවා ඇත',
      paragraphs: ['{merchant} හි {amount} ක් වූ {number} ඉන්වොයිසිය {dueDate} දින ගෙවිය යුතු වූ නමුත් තවම ගෙවා නැත.', 'කරුණාකර හැකි ඉක්මනින් එය ගෙවන්න.'],
      action: 'ඉන්වොයිසිය ගෙවන්න',
    },
    payment_failed: {
      subject: '{merchant} වෙත ඔබගේ {amount} ගෙවීම සාර්ථක නොවීය',
      paragraphs: ['{number} ඉන්වොයිසිය ({amount}) සඳහා ඔබගේ කාඩ්පතෙන් අය කිරීමට නොහැකි විය.', '{retry}', 'ඔබට මෙම කාඩ්පතෙන් හෝ වෙනත් කාඩ්පතකින් දැන්ම එය ගෙවිය හැක:'],
      action: 'ඉන්වොයිසිය ගෙවන්න',
    },
    trial_will_end: {
      subject: '{merchant} සමඟ ඔබගේ {product} අත්හදා බැලීමේ කාලය {trialEnd} දින අවසන් වේ',
      paragraphs: ['ඔබගේ {product} නොමිලේ අත්හදා බැලීමේ කාලය {trialEnd} දින අවසන් වේ.', 'ඉන්පසු සෑම බිල්පත් කාල පරිච්ඡේදයක් සඳහාම {amount} ක් අය කෙරේ.'],
    },
    subscription_canceled: {
      subject: '{merchant} සමඟ ඔබගේ {product} දායකත්වය අවලංගු කර ඇත',
      paragraphs: ['{merchant} සමඟ ඔබගේ {product} දායකත්වය {date} දින අවලංගු කරන ලදී.', 'ඒ සඳහා ඔබෙන් නැවත මුදල් අය නොකෙරේ.'],
    },
  },
};

const ta: Words = {
  hello: 'வணக்கம்,',
  helloNamed: 'வணக்கம் {customer},',
  footer: 'இந்த மின்னஞ்சலை Kasi மூலம் {merchant} அனுப்பியது.',
  retryOn: '{nextAttempt} அன்று உங்கள் அட்டையில் மீண்டும் முயற்சிப்போம்.',
  noRetry: 'உங்கள் அட்டையில் மீண்டும் முயற்சிக்க மாட்டோம்: தயவுசெய்து விலைப்பட்டியலை அதன் பக்கத்தில் செலுத்துங்கள்.',
  summary: { subtotal: 'துணை மொத்தம்', discount: 'தள்ளுபடி', discountNamed: 'தள்ளுபடி ({coupon})', taxAdded: '{name} {percentage}%', taxIncluded: '{name} {percentage}% (விலைகளில் அடங்கியது)', total: 'மொத்தம்' },
  creditApplied: 'உங்கள் இருப்பிலிருந்து பயன்படுத்திய வரவு: {credit}',
  creditNotes: 'வரவுக் குறிப்புகள்: {credit}',
  kinds: {
    receipt: {
      subject: '{merchant} இடமிருந்து ரசீது: {amount}',
      paragraphs: ['{date} அன்று {merchant} க்கு நீங்கள் செலுத்திய {amount} கட்டணத்திற்கு நன்றி.', 'விவரம்: {description}', '{card} மூலம் செலுத்தப்பட்டது.', 'கட்டணக் குறிப்பு எண்: {paymentId}'],
    },
    card_saved: {
      subject: 'உங்கள் அட்டை {merchant} இடம் சேமிக்கப்பட்டது',
      paragraphs: ['நீங்கள் ஒப்புக்கொண்டபடி, எதிர்காலக் கட்டணங்களுக்காக உங்கள் {card} {merchant} இடம் சேமிக்கப்பட்டுள்ளது.', 'எப்போது வேண்டுமானாலும் அதை நீக்குமாறு {merchant} இடம் கேட்கலாம்.'],
    },
    invoice: {
      subject: '{merchant} இடமிருந்து விலைப்பட்டியல் {number}: {amount}, {dueDate} க்குள் செலுத்த வேண்டும்',
      paragraphs: ['{merchant} உங்களுக்கு {amount} க்கான விலைப்பட்டியல் {number} அனுப்பியுள்ளது.', 'தயவுசெய்து {dueDate} க்குள் அதைச் செலுத்துங்கள்.'],
      action: 'விலைப்பட்டியலைப் பார்த்துச் செலுத்துங்கள்',
    },
    invoice_reminder: {
      subject: 'நினைவூட்டல்: {merchant} இன் விலைப்பட்டியல் {number} {dueDate} அன்று செலுத்தப்பட வேண்டும்',
      paragraphs: ['{merchant} இன் {amount} தொகைக்கான விலைப்பட்டியல் {number} {dueDate} அன்று செலுத்தப்பட வேண்டும்.', 'நீங்கள் ஏற்கனவே செலுத்தியிருந்தால், நன்றி: இந்த மின்னஞ்சலைப் புறக்கணிக்கலாம்.'],
      action: 'விலைப்பட்டியலைப் பார்த்துச் செலுத்துங்கள்',
    },
    invoice_overdue: {
      subject: '{merchant} இன் விலைப்பட்டியல் {number} செலுத்தும் தேதி கடந்துவிட்டது',
      paragraphs: ['{merchant} இன் {amount} தொகைக்கான விலைப்பட்டியல் {number} {dueDate} அன்று செலுத்தப்பட்டிருக்க வேண்டும், இன்னும் செலுத்தப்படவில்லை.', 'தயவுசெய்து கூடிய விரைவில் அதைச் செலுத்துங்கள்.'],
      action: 'விலைப்பட்டியலைச் செலுத்துங்கள்',
    },
    payment_failed: {
      subject: '{merchant} க்கான உங்கள் {amount} கட்டணம் வெற்றிபெறவில்லை',
      paragraphs: ['விலைப்பட்டியல் {number} ({amount}) க்காக உங்கள் அட்டையிலிருந்து பணம் பெற முடியவில்லை.', '{retry}', 'இந்த அட்டை அல்லது வேறொரு அட்டை மூலம் இப்போதே அதைச் செலுத்தலாம்:'],
      action: 'விலைப்பட்டியலைச் செலுத்துங்கள்',
    },
    trial_will_end: {
      subject: '{merchant} உடனான உங்கள் {product} சோதனைக் காலம் {trialEnd} அன்று முடிவடைகிறது',
      paragraphs: ['உங்கள் {product} இலவச சோதனைக் காலம் {trialEnd} அன்று முடிவடைகிறது.', 'அதன் பிறகு ஒவ்வொரு கட்டணக் காலத்திற்கும் {amount} வசூலிக்கப்படும்.'],
    },
    subscription_canceled: {
      subject: '{merchant} உடனான உங்கள் {product} சந்தா ரத்து செய்யப்பட்டது',
      paragraphs: ['{merchant} உடனான உங்கள் {product} சந்தா {date} அன்று ரத்து செய்யப்பட்டது.', 'இதற்காக உங்களிடம் மீண்டும் கட்டணம் வசூலிக்கப்படாது.'],
    },
  },
};

export const EMAIL_WORDS: Record<Locale, Words> = { en, si, ta };
